import { randomBytes } from 'node:crypto';
import { constants, type WriteStream } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';

const exclusiveCreate = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** A file being written under a temporary name in its final folder. */
export interface PublishOptions {
  /** Replace an existing file of that name (rename). Default: never replace. */
  overwrite?: boolean;
  /** When the name is taken, try "name (2).ext", "name (3).ext", ... */
  pickFreeName?: boolean;
  /** When the name is taken, try the names this returns for attempt 2, 3, ... (wins over pickFreeName). */
  nextName?: (attempt: number) => string;
}

export interface PendingFile {
  readonly tempPath: string;
  readonly stream: WriteStream;
  /** Finishes the stream and renames the file into place; returns the final path. */
  commit(options?: PublishOptions): Promise<string>;
  /** Ends the stream and removes the temporary file. Safe to call more than once. */
  abort(): Promise<void>;
}

function tempNameFor(finalPath: string): string {
  return path.join(path.dirname(finalPath), `.${path.basename(finalPath)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
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
export async function createPendingFile(finalPath: string): Promise<PendingFile> {
  const tempPath = tempNameFor(finalPath);
  const handle = await open(tempPath, exclusiveCreate, 0o644);
  const stream = handle.createWriteStream({ highWaterMark: 1 << 16 });
  let settled = false;
  const closed = new Promise<void>((resolve, reject) => {
    stream.once('close', resolve);
    stream.once('error', reject);
  });
  closed.catch(() => undefined);
  return {
    tempPath,
    stream,
    async commit(options = {}) {
      if (settled) throw new Error('pending file already settled');
      settled = true;
      try {
        if (!stream.writableEnded) stream.end();
        await closed;
        return await publish(tempPath, finalPath, options);
      } catch (error) {
        await unlink(tempPath).catch(() => undefined);
        throw error;
      }
    },
    async abort() {
      if (settled) return;
      settled = true;
      stream.destroy();
      await closed.catch(() => undefined);
      await unlink(tempPath).catch(() => undefined);
    },
  };
}

/** Writes a whole file atomically. Returns the final path (which differs from `finalPath` only with `pickFreeName`). */
export async function writeFileAtomic(
  finalPath: string,
  data: string | Uint8Array,
  options: PublishOptions = {},
): Promise<string> {
  const tempPath = tempNameFor(finalPath);
  const handle = await open(tempPath, exclusiveCreate, 0o644);
  try {
    await handle.writeFile(data);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    return await publish(tempPath, finalPath, options);
  } catch (error) {
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
}

/**
 * Moves a finished temporary file to its name. With overwrite, a plain rename
 * (which replaces a symlink rather than following it). Without, a hard link that
 * fails if the name is taken, so an existing file is never replaced; with
 * `pickFreeName`, "name (2).ext", "name (3).ext", ... are tried instead.
 */
async function publish(tempPath: string, finalPath: string, options: PublishOptions): Promise<string> {
  if (options.overwrite) {
    await rename(tempPath, finalPath);
    return finalPath;
  }
  for (let attempt = 1; attempt <= 1000; attempt += 1) {
    const candidate = attempt === 1 ? finalPath : options.nextName ? options.nextName(attempt) : numberedName(finalPath, attempt);
    try {
      await link(tempPath, candidate);
      await unlink(tempPath);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!options.pickFreeName && !options.nextName) {
        throw new SpillwayError('PATH_EXISTS', `A file named ${path.basename(finalPath)} already exists; choose another name.`, {
          name: path.basename(finalPath),
        });
      }
    }
  }
  throw new SpillwayError('PATH_EXISTS', `No free name found for ${path.basename(finalPath)}.`);
}

export function numberedName(filePath: string, n: number): string {
  const ext = path.extname(filePath);
  const stem = filePath.slice(0, filePath.length - ext.length);
  return `${stem} (${n})${ext}`;
}
