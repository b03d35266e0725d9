import { lstatSync, unlinkSync, type Stats } from 'node:fs';
import type { SweepFolders } from './sweep-folders.js';

/** The facts about a file when it was listed; it is removed only if it is still that file. */
export interface ListedFile {
  absolute: string;
  ino: number;
  size: number;
  mtimeMs: number;
}

export type RemoveOutcome = { outcome: 'removed' } | { outcome: 'vanished' } | { outcome: 'changed' } | { outcome: 'failed'; code: string; message: string };

/** Removes a listed file through its opened folder; a folder that is no longer a plain folder of the conversation skips the file. */
export function removeInFolder(folders: SweepFolders, relative: string, file: ListedFile): RemoveOutcome {
  const slash = relative.lastIndexOf('/');
  const folder = folders.folder(slash < 0 ? '' : relative.slice(0, slash));
  if (folder === undefined || slash < 0) return { outcome: 'changed' };
  return removeIfUnchanged(file, folder.entry(relative.slice(slash + 1)));
}

export function listedFile(absolute: string, stats: Stats): ListedFile {
  return { absolute, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

/**
 * Unlinks a listed file unless it changed since it was listed (another inode,
 * size or modification time: someone rewrote it, so it is no longer old) or
 * is already gone. lstat and unlink never follow a symlink: a link is removed
 * as a link and its target is never touched. `via` is the name inside the
 * opened folder (SweepFolders), so the folder cannot be swapped in between.
 * Synchronous on purpose (see Pacer).
 */
export function removeIfUnchanged(file: ListedFile, via: string = file.absolute): RemoveOutcome {
  let now: Stats | undefined;
  try {
    now = lstatSync(via, { throwIfNoEntry: false });
  } catch (error) {
    return failure(error);
  }
  if (now === undefined) return { outcome: 'vanished' };
  if (now.isDirectory() || now.ino !== file.ino || now.size !== file.size || now.mtimeMs !== file.mtimeMs) return { outcome: 'changed' };
  try {
    unlinkSync(via);
  } catch (error) {
    return failure(error);
  }
  return { outcome: 'removed' };
}

function failure(error: unknown): RemoveOutcome {
  const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
  if (code === 'ENOENT' || code === 'ENOTDIR') return { outcome: 'vanished' };
  return { outcome: 'failed', code, message: (error as Error).message };
}
