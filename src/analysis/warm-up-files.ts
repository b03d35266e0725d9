/**
 * Files for the DuckDB child's warm-up query (files-sql-child.ts), made so that a child
 * killed at any instruction leaves nothing behind.
 */
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Linux's O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`; Node does not export it): a file with no name in any folder. */
const openTmpFile = 0o20000000 | (constants.O_DIRECTORY ?? 0) | constants.O_RDWR;

/**
 * The warm-up's two files as paths DuckDB can open. On Linux they are nameless (O_TMPFILE)
 * and read through /proc/self/fd, so a child killed at any instruction (a host closing while
 * its spare warms) leaves nothing in the temporary folder. On a file system without O_TMPFILE
 * they are named files in a folder of their own, removed once they are open (elsewhere than
 * Linux, when the warm-up is done).
 */
export function warmUpFiles(contents: [string, string], fds: number[]): { paths: string[]; folder?: string } {
  const byDescriptor = existsSync('/proc/self/fd');
  if (byDescriptor) {
    try {
      for (const text of contents) {
        const fd = openSync(tmpdir(), openTmpFile, 0o600);
        fds.push(fd);
        writeSync(fd, text);
      }
      return { paths: fds.map((fd) => `/proc/self/fd/${fd}`) };
    } catch {
      for (const fd of fds.splice(0)) closeSync(fd);
    }
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'spillway-duckdb-warm-'));
  const paths = contents.map((text, index) => path.join(folder, `${index}.jsonl`));
  paths.forEach((file, index) => {
    writeFileSync(file, contents[index]!);
    fds.push(openSync(file, 'r+'));
  });
  if (!byDescriptor) return { paths, folder };
  // Open, they are read by descriptor: the folder goes at once, before the padding is written.
  rmSync(folder, { recursive: true, force: true });
  return { paths: fds.map((fd) => `/proc/self/fd/${fd}`) };
}
