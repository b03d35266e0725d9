import { watch, type Dirent, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** A folder's entry that may have changed: a name that appeared, changed or went. */
export type EntryListener = (folder: string, name: string) => void;

export interface FolderWatchesOptions {
  /** Folders watched through the kernel (one inotify watch each); folders past this are polled. */
  maxWatched: number;
  /** How often polled folders are looked at (ms). */
  pollIntervalMs: number;
  onEntry: EntryListener;
  /** A folder that can no longer be watched (removed, or the watch failed). */
  onGone?: (folder: string, error?: unknown) => void;
}

/** How many folders are followed, and how. */
export interface FolderWatchCounts {
  watched: number;
  polled: number;
}

interface Polled {
  mtimeMs: number;
  names: Set<string>;
}

/**
 * Follows a set of folders, not files: each folder costs one kernel watch
 * (fs.watch, an inotify watch on Linux) however many files it holds, up to
 * `maxWatched`; the folders past the limit are polled, each by one stat of the
 * folder per interval and a listing only when its mtime moved. Polling sees
 * names that appear or go (a new file, an atomic rename into place), not a
 * file rewritten in place.
 */
export class FolderWatches {
  private readonly watched = new Map<string, FSWatcher>();
  private readonly polled = new Map<string, Polled>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;

  constructor(private readonly options: FolderWatchesOptions) {}

  has(folder: string): boolean {
    return this.watched.has(folder) || this.polled.has(folder);
  }

  counts(): FolderWatchCounts {
    return { watched: this.watched.size, polled: this.polled.size };
  }

  /**
   * Starts following a folder; resolves with the entries it holds now (read
   * once, so a caller can look at what landed before the watch began). Rejects
   * when the folder cannot be read.
   */
  async add(folder: string): Promise<Dirent[]> {
    if (this.closed || this.has(folder)) return [];
    if (this.watched.size < this.options.maxWatched) {
      const watcher = this.watchFolder(folder);
      if (watcher !== undefined) {
        this.watched.set(folder, watcher);
        try {
          return await readdir(folder, { withFileTypes: true });
        } catch (error) {
          this.remove(folder);
          throw error;
        }
      }
    }
    const [info, entries] = await Promise.all([stat(folder), readdir(folder, { withFileTypes: true })]);
    if (this.closed || this.has(folder)) return entries;
    this.polled.set(folder, { mtimeMs: info.mtimeMs, names: new Set(entries.map((entry) => entry.name)) });
    this.schedulePoll();
    return entries;
  }

  /** Stops following a folder and every folder below it. */
  remove(folder: string): void {
    const prefix = folder + path.sep;
    for (const [name, watcher] of this.watched) {
      if (name === folder || name.startsWith(prefix)) {
        watcher.close();
        this.watched.delete(name);
      }
    }
    for (const name of this.polled.keys()) if (name === folder || name.startsWith(prefix)) this.polled.delete(name);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of this.watched.values()) watcher.close();
    this.watched.clear();
    this.polled.clear();
  }

  private watchFolder(folder: string): FSWatcher | undefined {
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, (_event, name) => {
        if (name !== null) this.options.onEntry(folder, name);
        // Linux reports an overflowed or unnamed event without a name: look at the whole folder again.
        else void this.relist(folder);
      });
    } catch {
      // Out of kernel watches (ENOSPC from inotify) or gone: polling takes the folder, or the caller sees it gone.
      return undefined;
    }
    watcher.on('error', (error) => {
      this.remove(folder);
      this.options.onGone?.(folder, error);
    });
    return watcher;
  }

  private async relist(folder: string): Promise<void> {
    const names = await readdir(folder).catch(() => []);
    for (const name of names) this.options.onEntry(folder, name);
  }

  private schedulePoll(): void {
    if (this.timer !== undefined || this.closed) return;
    // Keeps the process alive like a kernel watch does; close() stops it.
    this.timer = setTimeout(() => void this.poll(), this.options.pollIntervalMs);
  }

  private async poll(): Promise<void> {
    this.timer = undefined;
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      for (const [folder, state] of [...this.polled]) {
        if (this.closed) return;
        await this.pollOne(folder, state);
      }
    } finally {
      this.polling = false;
      if (this.polled.size > 0) this.schedulePoll();
    }
  }

  private async pollOne(folder: string, state: Polled): Promise<void> {
    const info = await stat(folder).catch(() => undefined);
    if (info === undefined) {
      this.remove(folder);
      this.options.onGone?.(folder);
      return;
    }
    if (info.mtimeMs === state.mtimeMs) return;
    state.mtimeMs = info.mtimeMs;
    const names = new Set(await readdir(folder).catch(() => []));
    for (const name of names) if (!state.names.has(name)) this.options.onEntry(folder, name);
    for (const name of state.names) if (!names.has(name)) this.options.onEntry(folder, name);
    state.names = names;
  }
}
