import { readdir, lstat, unlink } from 'node:fs/promises';
import type { PinnedFolder } from './pinned-folder.js';

/**
 * The exact shape of a temporary name made by createPendingFile:
 * ".<final name>.<pid>.<12 hex>.tmp". Stricter than isTempName, so recovery
 * only ever touches names that this code made.
 */
const publishTempPattern = /^\..+\.\d+\.[0-9a-f]{12}\.tmp$/s;

/** Whether `name` is a temporary name made by createPendingFile / writeFileAtomic. */
export function isPublishTempName(name: string): boolean {
  return publishTempPattern.test(name);
}

/** The identity of a file as fstat/lstat gives it. */
export interface FileIdentity {
  dev: number;
  ino: number;
  nlink: number;
}

/**
 * Repairs a file left with two hard links by a publish that was killed
 * between its `link(temp, final)` and its `unlink(temp)`: when the file has
 * exactly two links and the other one is a temporary name of ours in the same
 * opened folder (same device and inode), that temporary name is removed.
 * Returns whether a link was removed. A second link anywhere else (another
 * folder, a name that is not ours) is left alone, so the reader still refuses
 * the file (PATH_HARDLINK): that is the check against a hard link planted to
 * a file outside the sandbox, and it must keep holding.
 *
 * A live publish between its two calls may see its temporary name vanish;
 * publish treats that as done (see atomic-write.ts).
 */
export async function repairPublishLink(folder: PinnedFolder, file: FileIdentity): Promise<boolean> {
  if (file.nlink !== 2) return false;
  let names: string[];
  try {
    names = await readdir(folder.entry(''));
  } catch {
    return false;
  }
  for (const name of names) {
    if (!isPublishTempName(name)) continue;
    const info = await lstat(folder.entry(name)).catch(() => undefined);
    if (info === undefined || !info.isFile() || info.ino !== file.ino || info.dev !== file.dev) continue;
    try {
      await unlink(folder.entry(name));
      return true;
    } catch (error) {
      // Removed meanwhile (by the publish itself, or another recovery): the link is repaired either way.
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }
  return false;
}
