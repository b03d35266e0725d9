import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Everything under a folder, without following a symlink: each entry's kind,
 * size, modification time and content digest. Two equal snapshots mean no
 * byte was written, read-modified or deleted there in between.
 */
export async function snapshotTree(root: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const absolute = path.join(dir, name);
      const relative = path.relative(root, absolute);
      const info = await lstat(absolute);
      if (info.isDirectory()) {
        lines.push(`${relative}/`);
        await walk(absolute);
      } else if (info.isSymbolicLink()) {
        lines.push(`${relative} -> ${await readlink(absolute)}`);
      } else if (info.isFile()) {
        const digest = createHash('sha256')
          .update(await readFile(absolute))
          .digest('hex')
          .slice(0, 16);
        lines.push(`${relative} ${info.size} ${info.mtimeMs} ${digest}`);
      } else {
        lines.push(`${relative} (special)`);
      }
    }
  };
  await walk(root);
  return lines;
}
