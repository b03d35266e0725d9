import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { expiredLogName } from '../sandbox/index.js';
import type { SweepFolders } from './sweep-folders.js';

const appendFlags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Past this size the log is rewritten without its oldest entries. */
const compactAboveBytes = 512 * 1024;

export interface ExpiredEntry {
  /** Relative to the conversation folder, as the model saw it. */
  path: string;
  expiredAt: string;
}

/**
 * Where removed files are recorded before they go: the `.expired.jsonl` file
 * of each conversation (one process; {@link fileExpiryLog}) or, in a fleet,
 * the coordination store (shared-expiry-log.ts).
 */
export interface ExpiryLog {
  /**
   * Whether removal waits for the record: when true, a batch whose record
   * failed keeps its files (nothing is removed unrecorded; the next sweep
   * tries again). The file log says false: a log that cannot be written (a
   * symlink planted in its place) must not keep a conversation's files forever.
   */
  readonly required: boolean;
  record(input: { conversationId: string; folders: SweepFolders; entries: readonly ExpiredEntry[]; now: Date; keepMs: number }): Promise<void>;
}

/** The expiry log of one process: each conversation's `.expired.jsonl` ({@link recordExpired}). */
export const fileExpiryLog: ExpiryLog = {
  required: false,
  record: ({ folders, entries, now, keepMs }) => {
    recordExpired(folders, entries, { now, keepMs });
    return Promise.resolve();
  },
};

/**
 * Records removed files in a conversation's `.expired.jsonl`, so that reading
 * one later gets PATH_EXPIRED ("expired on …; run the query again") instead of
 * a bare not-found. The log is written inside the opened, checked
 * conversation folder, opened with O_NOFOLLOW | O_NONBLOCK (never through a
 * symlink, never blocked by a FIFO) and must be a regular file; once large,
 * it keeps only entries younger than `keepMs`.
 * Synchronous, like the rest of the sweep (see Pacer).
 */
export function recordExpired(folders: SweepFolders, entries: readonly ExpiredEntry[], options: { now: Date; keepMs: number }): void {
  if (entries.length === 0) return;
  const conversation = folders.conversation();
  if (conversation === undefined) {
    throw Object.assign(new Error(`${folders.conversationDir} is not a plain folder any more; the expiry log was not written`), { code: 'NOT_A_FOLDER' });
  }
  const logPath = conversation.entry(expiredLogName);
  const lines = entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n';
  const info = lstatSync(logPath, { throwIfNoEntry: false });
  if (info !== undefined && !info.isFile()) {
    throw Object.assign(new Error(`${logPath} is not a regular file (a symlink?); not written`), { code: 'NOT_A_FILE' });
  }
  if ((info?.size ?? 0) > compactAboveBytes) {
    const horizon = options.now.getTime() - options.keepMs;
    const kept = readRegularFile(logPath)
      .split('\n')
      .filter((line) => {
        try {
          const entry = JSON.parse(line) as Partial<ExpiredEntry>;
          return typeof entry.expiredAt === 'string' && Date.parse(entry.expiredAt) >= horizon;
        } catch {
          return false;
        }
      });
    // Rewritten atomically (a new file renamed over the old, which replaces a symlink rather than following it).
    const temp = conversation.entry(`.${expiredLogName}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    writeFileSync(temp, (kept.length > 0 ? `${kept.join('\n')}\n` : '') + lines, { flag: 'wx' });
    renameSync(temp, logPath);
    return;
  }
  const fd = openSync(logPath, appendFlags, 0o600);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error(`${expiredLogName} is not a regular file; not written`), { code: 'NOT_A_FILE' });
    writeSync(fd, lines);
  } finally {
    closeSync(fd);
  }
}

/** Reads a file opened without following a symlink or blocking on a FIFO; anything but a regular file is refused. */
function readRegularFile(file: string): string {
  const fd = openSync(file, readFlags);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw Object.assign(new Error(`${expiredLogName} is not a regular file; not read`), { code: 'NOT_A_FILE' });
    const buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
