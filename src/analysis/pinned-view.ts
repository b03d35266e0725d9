/**
 * The conversation's files as the DuckDB child opens them. DuckDB takes paths and
 * opens them itself, later, following symlinks; a file checked by name and then
 * replaced (by a symlink to a file outside, or under a folder swapped for one) would
 * be read from wherever it now leads. So the child opens each file first, checks
 * what it opened, and gives DuckDB names in a private folder that lead to those
 * descriptors (`/proc/self/fd/N`): whatever happens to the conversation's folder
 * afterwards, DuckDB reads, or writes, exactly the files that were checked.
 */
import { closeSync, constants, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** One file DuckDB may open: read (the conversation's data files) or written (a Parquet export's temporary file). */
export interface ViewEntry {
  /** Absolute path, inside `cwd`. */
  path: string;
  write?: boolean;
}

export interface PinnedView {
  /** The folder to run DuckDB in: relative paths in the SQL name the same files as in the conversation. */
  folder: string;
  /** What DuckDB may open (allowed_paths), in the order of the entries that passed their checks. */
  paths: string[];
  /** The path each passing entry has in the view, by its path in the conversation. */
  byOriginal: Map<string, string>;
  /** The descriptors the view's names lead to, closed by {@link releaseView}. */
  fds: number[];
}

/** The name of a view folder of the child `pid` starts with this (the parent removes them when the child exits). */
export function viewFolderPrefix(pid: number): string {
  return `spillway-duckdb-view-${pid}-`;
}

const byDescriptor = existsSync('/proc/self/fd');

/**
 * Opens and checks each entry; an entry that fails a check is left out (DuckDB then
 * refuses its name as any other it may not open). Checked on the descriptor: a
 * regular file (a FIFO is opened without waiting, then refused), one link, and the
 * path the kernel resolved (/proc/self/fd) is the one listed, so neither the file
 * nor a folder on the way was a symlink. Without /proc (not Linux) the paths are
 * given as they are, checked by name only.
 */
export function pinView(cwd: string, entries: readonly ViewEntry[]): PinnedView {
  if (!byDescriptor) {
    const byOriginal = new Map(entries.map((entry) => [entry.path, entry.path]));
    return { folder: cwd, paths: entries.map((entry) => entry.path), byOriginal, fds: [] };
  }
  const folder = mkdtempSync(path.join(tmpdir(), viewFolderPrefix(process.pid)));
  const view: PinnedView = { folder, paths: [], byOriginal: new Map(), fds: [] };
  for (const entry of entries) {
    const relative = path.relative(cwd, entry.path);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
    const fd = openChecked(entry);
    if (fd === undefined) continue;
    view.fds.push(fd);
    const name = path.join(folder, relative);
    mkdirSync(path.dirname(name), { recursive: true });
    symlinkSync(`/proc/self/fd/${fd}`, name);
    view.paths.push(name);
    view.byOriginal.set(entry.path, name);
  }
  return view;
}

function openChecked(entry: ViewEntry): number | undefined {
  const flags = (entry.write === true ? constants.O_WRONLY : constants.O_RDONLY) | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = openSync(entry.path, flags);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isFile() && stats.nlink === 1 && readlinkSync(`/proc/self/fd/${fd}`) === entry.path) return fd;
  } catch {
    // Not checkable: left out like a file that failed its checks.
  }
  closeSync(fd);
  return undefined;
}

/** Closes the view's descriptors and removes its folder (the child's own cleanup when it is done). */
export function releaseView(view: PinnedView): void {
  for (const fd of view.fds.splice(0)) closeSync(fd);
  if (byDescriptor) rmSync(view.folder, { recursive: true, force: true });
}

/**
 * Removes the view folders a child left (it was killed at its deadline, or crashed):
 * names that lead to descriptors of a process that is gone, but names nonetheless.
 */
export function removeViewFolders(pid: number): void {
  const prefix = viewFolderPrefix(pid);
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
}
