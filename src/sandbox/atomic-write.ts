import { randomBytes } from 'node:crypto';
import { closeSync, constants, linkSync, openSync, unlinkSync, writeSync, type WriteStream } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import { fileMode } from './layout.js';
import { asDiskError } from './disk-errors.js';
import { PinnedFolder } from './pinned-folder.js';

const exclusiveCreate = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** A file being written under a temporary name in its final folder. */
export interface PublishOptions {
  /** Replace an existing file of that name (rename). Default: never replace. */
  overwrite?: boolean;
  /** When the name is taken, try "name (2).ext", "name (3).ext", ... */
  pickFreeName?: boolean;
  /** When the name is taken, try the names this returns for attempt 2, 3, ... (wins over pickFreeName). */
  nextName?: (attempt: number) => string;
  /**
   * Called with each candidate final path just before the file is linked
   * there (writeSpill publishes a spill's sidecar here, so the data becomes
   * visible last). Return 'taken' to skip that name; otherwise return an undo,
   * run when the name turns out to be taken or the link fails.
   */
  beforeLink?: (finalPath: string) => Promise<'taken' | (() => Promise<void>)>;
}

export interface CreateOptions {
  /**
   * The final folder is a real sandbox path: open it once (no symlink on the
   * way) and create, name and remove through the opened folder, so a folder
   * swapped for a symlink meanwhile cannot redirect the bytes. Default true;
   * false only for paths an operator chose outside any sandbox (CLI export).
   */
  pinFolder?: boolean;
}

/** Where a file's names live: an opened, checked folder, or (pinFolder false) a plain path. */
interface Place {
  /** The path to use for a name in the folder. */
  at(name: string): string;
  /** The real path to report for a name. */
  real(name: string): string;
  /** Mode of created files: 0600 in the sandbox; an operator's own path (CLI export) gets the usual 0666 less the umask. */
  mode: number;
  close(): Promise<void>;
}

async function placeOf(finalPath: string, options: CreateOptions): Promise<Place> {
  const dir = path.dirname(finalPath);
  if (options.pinFolder === false) {
    return { at: (name) => path.join(dir, name), real: (name) => path.join(dir, name), mode: 0o666, close: async () => undefined };
  }
  const folder = await PinnedFolder.open(dir);
  return { at: (name) => folder.entry(name), real: (name) => folder.realPath(name), mode: fileMode, close: () => folder.close() };
}

export interface PendingFile {
  readonly tempPath: string;
  readonly stream: WriteStream;
  /** Finishes the stream and renames the file into place; returns the final path. */
  commit(options?: PublishOptions): Promise<string>;
  /** Ends the stream and removes the temporary file. Safe to call more than once. */
  abort(): Promise<void>;
}

/**
 * Bytes of the final name a temporary name carries: a name is at most 255 bytes
 * (NAME_MAX), and the temporary one adds ".", ".PID." (pid_max is at most 2^22, 7
 * digits), 12 random hex digits and ".tmp". A longer final name is cut on a code point.
 */
const tempNameFinalBytes = 255 - 1 - (1 + 7 + 1) - 12 - 4;

/** What this process's temporary names for `finalName` start with (".name.PID."). */
export function tempNamePrefix(finalName: string): string {
  let kept = finalName;
  if (Buffer.byteLength(kept) > tempNameFinalBytes) {
    const bytes = Buffer.from(kept).subarray(0, tempNameFinalBytes);
    // A code point cut in two decodes to U+FFFD at the end: drop it.
    kept = bytes.toString('utf8').replace(/\uFFFD+$/, '');
  }
  return `.${kept}.${process.pid}.`;
}

function tempNameFor(finalPath: string): string {
  return `${tempNamePrefix(path.basename(finalPath))}${randomBytes(6).toString('hex')}.tmp`;
}

/** Tells whether a file name is one of our temporary names (retention and listings skip them). */
export function isTempName(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/**
 * Starts writing `finalPath` atomically: bytes go to a temporary file created
 * exclusively (never through a symlink) in the same folder, and only `commit`
 * gives the file its real name. A crash leaves at most a temporary file.
 */
export async function createPendingFile(finalPath: string, options: CreateOptions = {}): Promise<PendingFile> {
  const place = await placeOf(finalPath, options);
  const tempName = tempNameFor(finalPath);
  const tempAt = place.at(tempName);
  let handle;
  try {
    handle = await open(tempAt, exclusiveCreate, place.mode);
  } catch (error) {
    await place.close();
    throw asDiskError(error, { path: path.basename(finalPath) });
  }
  const stream = handle.createWriteStream({ highWaterMark: 1 << 16 });
  let settled = false;
  const closed = new Promise<void>((resolve, reject) => {
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  closed.catch(() => undefined);
  return {
    tempPath: place.real(tempName),
    stream,
    async commit(publishOptions = {}) {
      if (settled) throw new Error('pending file already settled');
      settled = true;
      try {
        if (!stream.writableEnded) stream.end();
        await closed;
        return await publish(place, tempAt, finalPath, publishOptions);
      } catch (error) {
        await unlink(tempAt).catch(() => undefined);
        throw asDiskError(error, { path: path.basename(finalPath) });
      } finally {
        await place.close();
      }
    },
    async abort() {
      if (settled) return;
      settled = true;
      stream.destroy();
      await closed.catch(() => undefined);
      await unlink(tempAt).catch(() => undefined);
      await place.close();
    },
  };
}

/** Writes a whole file atomically. Returns the final path (which differs from `finalPath` only with `pickFreeName`). */
export async function writeFileAtomic(
  finalPath: string,
  data: string | Uint8Array,
  options: PublishOptions & CreateOptions = {},
): Promise<string> {
  const place = await placeOf(finalPath, options);
  const shown = { path: path.basename(finalPath) };
  try {
    const tempAt = place.at(tempNameFor(finalPath));
    const handle = await open(tempAt, exclusiveCreate, place.mode).catch((error: unknown) => {
      throw asDiskError(error, shown);
    });
    try {
      await handle.writeFile(data);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(tempAt).catch(() => undefined);
      throw asDiskError(error, shown);
    }
    await handle.close();
    try {
      return await publish(place, tempAt, finalPath, options);
    } catch (error) {
      await unlink(tempAt).catch(() => undefined);
      throw asDiskError(error, shown);
    }
  } finally {
    await place.close();
  }
}

/**
 * Moves a finished temporary file to its name. With overwrite, a plain rename
 * (which replaces a symlink rather than following it). Without, a hard link that
 * fails if the name is taken, so an existing file is never replaced; with
 * `pickFreeName`, "name (2).ext", "name (3).ext", ... are tried instead.
 */
async function publish(place: Place, tempAt: string, finalPath: string, options: PublishOptions): Promise<string> {
  const name = path.basename(finalPath);
  if (options.overwrite) {
    await rename(tempAt, place.at(name));
    return place.real(name);
  }
  for (let attempt = 1; attempt <= 1000; attempt += 1) {
    // Other names stay in the same folder: only their last component is used.
    const candidate = path.basename(attempt === 1 ? finalPath : options.nextName ? options.nextName(attempt) : numberedName(finalPath, attempt));
    const undo = options.beforeLink === undefined ? undefined : await options.beforeLink(place.real(candidate));
    if (undo === 'taken') {
      if (!options.pickFreeName && !options.nextName) throw nameTaken(finalPath);
      continue;
    }
    try {
      await link(tempAt, place.at(candidate));
    } catch (error) {
      await undo?.();
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!options.pickFreeName && !options.nextName) throw nameTaken(finalPath);
      continue;
    }
    // A kill here leaves the file with two links; recovery (publish-leftovers.ts) removes the
    // temporary one, and may do so before this unlink runs: the file is published either way.
    await unlink(tempAt).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    return place.real(candidate);
  }
  throw new SpillwayError('PATH_EXISTS', `No free name found for ${path.basename(finalPath)}.`);
}

function nameTaken(finalPath: string): SpillwayError {
  return new SpillwayError('PATH_EXISTS', `A file named ${path.basename(finalPath)} already exists; choose another name.`, {
    name: path.basename(finalPath),
  });
}

export function numberedName(filePath: string, n: number): string {
  const ext = path.extname(filePath);
  const stem = filePath.slice(0, filePath.length - ext.length);
  return `${stem} (${n})${ext}`;
}

/**
 * Files up to this size are written and published with synchronous system
 * calls ({@link publishSmallFileSync}). Each asynchronous fs call is a round
 * trip through libuv's thread pool (tens of µs, more on a busy machine); a
 * small spill made ten of them, which cost more than writing its bytes.
 */
export const smallFileBytes = 512 * 1024;

export interface SmallPublish {
  /** The final path for attempt 2, 3, ... when the name of attempt 1 (`finalPath`) is taken. */
  nextName: (attempt: number) => string;
  /**
   * A file written beside each candidate before the data is linked, at its
   * own name, created exclusively: a taken sidecar name means the candidate is
   * taken. The data is linked last, so it is never visible without its
   * complete sidecar; a crash may leave a sidecar without data, which the sweep
   * removes after retention.tempGraceMs, as with the asynchronous publish.
   */
  sidecar?: (finalPath: string) => { path: string; data: string };
}

/**
 * Writes `data` under a temporary name in the opened final folder and links it
 * to the first free candidate name, never replacing a file: the same steps and
 * guarantees as {@link createPendingFile} with `commit`, in synchronous calls
 * (for at most {@link smallFileBytes}). Returns the final real path.
 */
export function publishSmallFileSync(finalPath: string, data: Uint8Array, options: SmallPublish): string {
  const folder = PinnedFolder.openSync(path.dirname(finalPath));
  const shown = { path: path.basename(finalPath) };
  const tempAt = folder.entry(tempNameFor(finalPath));
  try {
    writeExclusiveSync(tempAt, data, shown);
    try {
      for (let attempt = 1; attempt <= 1000; attempt += 1) {
        const candidate = path.basename(attempt === 1 ? finalPath : options.nextName(attempt));
        const sidecar = options.sidecar?.(folder.realPath(candidate));
        const sidecarAt = sidecar === undefined ? undefined : folder.entry(path.basename(sidecar.path));
        if (sidecar !== undefined && sidecarAt !== undefined && !writeExclusiveSync(sidecarAt, sidecar.data, shown, { takenIsFalse: true })) continue;
        try {
          linkSync(tempAt, folder.entry(candidate));
        } catch (error) {
          if (sidecarAt !== undefined) unlinkQuietly(sidecarAt);
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
          throw error;
        }
        unlinkQuietly(tempAt);
        return folder.realPath(candidate);
      }
      throw new SpillwayError('PATH_EXISTS', `No free name found for ${path.basename(finalPath)}.`);
    } catch (error) {
      unlinkQuietly(tempAt);
      throw SpillwayError.is(error) ? error : asDiskError(error, shown);
    }
  } finally {
    folder.closeSync();
  }
}

/** Creates `at` exclusively and writes all of `data`; a failed write removes the file. With takenIsFalse, an existing name returns false. */
function writeExclusiveSync(at: string, data: string | Uint8Array, shown: { path: string }, options: { takenIsFalse?: boolean } = {}): boolean {
  let fd: number;
  try {
    fd = openSync(at, exclusiveCreate, fileMode);
  } catch (error) {
    if (options.takenIsFalse && (error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw asDiskError(error, shown);
  }
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let written = 0; written < bytes.byteLength; ) written += writeSync(fd, bytes, written, bytes.byteLength - written);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(at);
    throw asDiskError(error, shown);
  }
  closeSync(fd);
  return true;
}

function unlinkQuietly(at: string): void {
  try {
    unlinkSync(at);
  } catch {
    // Already gone (a recovery removed it, or it was never made): nothing to undo.
  }
}
