import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { SpillwayError } from '../errors.js';

const folderFlags = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Linux: operations go through /proc/self/fd/N, which the kernel resolves through the opened folder. */
const viaProc = existsSync('/proc/self/fd');

/**
 * A folder opened once (O_DIRECTORY | O_NOFOLLOW) and checked to be the folder
 * expected at its real path, so that later operations on its entries act in
 * that very folder. Node has no openat(); `entry(name)` gives
 * `/proc/self/fd/N/name`, which the kernel resolves through the opened folder:
 * swapping a folder on the way for a symlink after the check cannot redirect
 * what is created, read or removed. Without /proc (not Linux) it falls back to
 * the checked path (a check-then-use window remains there).
 *
 * Close it when done; an open folder costs one file descriptor.
 */
export class PinnedFolder {
  private closed = false;

  private constructor(
    /** The real absolute path the folder was checked to have. */
    readonly path: string,
    readonly fd: number,
  ) {}

  /** Opens and checks `expected`, a real (symlink-free) absolute path; throws PATH_ESCAPES or the errno error. */
  static openSync(expected: string): PinnedFolder {
    const fd = openSync(expected, folderFlags);
    try {
      check(expected, viaProc ? readlinkSync(`/proc/self/fd/${fd}`) : undefined, () => sameFile(fstatSync(fd), lstatSync(expected)));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new PinnedFolder(expected, fd);
  }

  /**
   * {@link openSync} for async callers. The open and the readlink are two
   * cheap system calls: done synchronously they cost a few microseconds,
   * where three trips through libuv's thread pool cost ~50 µs each on a busy
   * machine (measured in bench/spill-checks.bench.ts).
   */
  static async open(expected: string): Promise<PinnedFolder> {
    return PinnedFolder.openSync(expected);
  }

  /** A path naming `name` inside this opened folder (a single name, never with "/"). */
  entry(name: string): string {
    if (name.includes('/') || name === '..') throw new Error(`not a single name: ${name}`);
    if (!viaProc) return name === '' ? this.path : path.join(this.path, name);
    return name === '' ? `/proc/self/fd/${this.fd}` : `/proc/self/fd/${this.fd}/${name}`;
  }

  /** The real path of `name` in this folder, for messages and references. */
  realPath(name: string): string {
    return path.join(this.path, name);
  }

  /** Whether the folder still has its checked path (it may have been moved since it was opened). */
  stillAt(): boolean {
    if (!viaProc) return true;
    try {
      return readlinkSync(`/proc/self/fd/${this.fd}`) === this.path;
    } catch {
      return false;
    }
  }

  closeSync(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  async close(): Promise<void> {
    this.closeSync();
  }
}

function check(expected: string, real: string | undefined, same: () => boolean): void {
  const ok = real !== undefined ? real === expected : same();
  if (!ok) {
    throw new SpillwayError('PATH_ESCAPES', `The folder ${expected} changed while in use (it was moved or replaced, e.g. by a symlink); the operation was refused.`, {
      folder: expected,
      ...(real === undefined ? {} : { found: real }),
    });
  }
}

function sameFile(a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Whether an error is PinnedFolder's refusal or an errno that a symlink or non-folder on the way produces. */
export function isRedirectRefusal(error: unknown): boolean {
  if (SpillwayError.is(error)) return error.code === 'PATH_ESCAPES';
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ELOOP' || code === 'ENOTDIR';
}
