import { closeSync, constants, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { expiredLogName } from '../sandbox/index.js';

const appendFlags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Past this size the log is rewritten without its oldest entries. */
const compactAboveBytes = 512 * 1024;

export interface ExpiredEntry {
  /** Relative to the conversation folder, as the model saw it. */
  path: string;
  expiredAt: string;
}

/**
 * Records removed files in a conversation's `.expired.jsonl`, so that reading
 * one later gets PATH_EXPIRED ("expired on …; run the query again") instead of
 * a bare not-found. The log is opened with O_NOFOLLOW (never through a
 * symlink) and, once large, keeps only entries younger than `keepMs`.
 * Synchronous, like the rest of the sweep (see Pacer).
 */
export function recordExpired(conversationDir: string, entries: readonly ExpiredEntry[], options: { now: Date; keepMs: number }): void {
  if (entries.length === 0) return;
  const logPath = path.join(conversationDir, expiredLogName);
  const lines = entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n';
  const info = lstatSync(logPath, { throwIfNoEntry: false });
  if (info !== undefined && !info.isFile()) {
    throw Object.assign(new Error(`${logPath} is not a regular file (a symlink?); not written`), { code: 'NOT_A_FILE' });
  }
  if ((info?.size ?? 0) > compactAboveBytes) {
    const horizon = options.now.getTime() - options.keepMs;
    const kept = readFileSync(logPath, 'utf8').split('\n').filter((line) => {
      try {
        const entry = JSON.parse(line) as Partial<ExpiredEntry>;
        return typeof entry.expiredAt === 'string' && Date.parse(entry.expiredAt) >= horizon;
      } catch {
        return false;
      }
    });
    // Rewritten atomically (a new file renamed over the old, which replaces a symlink rather than following it).
    const temp = path.join(conversationDir, `.${expiredLogName}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    writeFileSync(temp, (kept.length > 0 ? `${kept.join('\n')}\n` : '') + lines, { flag: 'wx' });
    renameSync(temp, logPath);
    return;
  }
  const fd = openSync(logPath, appendFlags, 0o644);
  try {
    writeSync(fd, lines);
  } finally {
    closeSync(fd);
  }
}
