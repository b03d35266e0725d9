import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { SpillwayError } from '../errors.js';

/** The lock file in the sandbox root; the server's and the CLI's sweeps both take it. */
export const sweepLockName = '.spillway-sweep.lock';

/** Who holds the lock, as written in the lock file. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** The holder's process start time (Linux /proc), so a reused pid is not mistaken for the holder. */
  processStart?: string;
  startedAt: string;
  /** Unique per acquisition: release and take-over only ever remove the lock they read. */
  token: string;
}

export interface SweepLock {
  readonly owner: LockOwner;
  readonly path: string;
  /** Removes the lock if it is still ours. Safe to call more than once. */
  release(): Promise<void>;
}

/**
 * Takes the sweep lock of a sandbox root, so two sweeps (the server's cron,
 * `spillway cleanup`, or two at once in one process) never run together. A
 * lock whose holder process is gone is taken over; a live one fails with
 * RETENTION_LOCKED naming the holder.
 *
 * The lock file is created complete (a temporary file hard-linked to the lock
 * name, which fails if the name exists), so a reader never sees a half lock.
 */
export async function acquireSweepLock(root: string, now: () => Date = () => new Date()): Promise<SweepLock> {
  const lockPath = path.join(root, sweepLockName);
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), startedAt: now().toISOString(), token: randomUUID() };
  const processStart = processStartOf(process.pid);
  if (processStart !== undefined) owner.processStart = processStart;

  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (await createExclusive(lockPath, `${JSON.stringify(owner)}\n`)) {
      let released = false;
      return {
        owner,
        path: lockPath,
        async release() {
          if (released) return;
          released = true;
          const current = await readOwner(lockPath);
          if (current !== 'missing' && current !== 'unreadable' && current.token === owner.token) await unlink(lockPath).catch(() => undefined);
        },
      };
    }
    const holder = await readOwner(lockPath);
    if (holder === 'missing') continue;
    if (holder !== 'unreadable' && isAlive(holder)) {
      throw new SpillwayError(
        'RETENTION_LOCKED',
        `Another retention sweep is running on ${root} (pid ${holder.pid} on ${holder.hostname}, since ${holder.startedAt}); try again when it has finished. If no sweep is running, delete ${lockPath}.`,
        { root, lock: lockPath, holder },
      );
    }
    await takeOver(lockPath, holder);
  }
  throw new SpillwayError('RETENTION_LOCKED', `Could not take the sweep lock ${lockPath}: other processes keep taking it; try again later.`, {
    root,
    lock: lockPath,
  });
}

async function createExclusive(lockPath: string, content: string): Promise<boolean> {
  const temp = `${lockPath}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temp, content, { flag: 'wx', mode: 0o600 });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function readOwner(lockPath: string): Promise<LockOwner | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.token === 'string' && typeof parsed.hostname === 'string') return parsed as LockOwner;
  } catch {
    // fall through: not written by this code
  }
  return 'unreadable';
}

/**
 * A holder on another machine (a shared filesystem) cannot be checked, so it
 * counts as alive; on this machine the pid must exist and, where /proc tells,
 * be the same process that wrote the lock (pids are reused).
 */
function isAlive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (owner.processStart !== undefined) {
    const current = processStartOf(owner.pid);
    if (current !== undefined && current !== owner.processStart) return false;
  }
  return true;
}

/**
 * Removes a stale lock without racing another taker: the lock is renamed away
 * (only one process can), and if what moved is not the stale lock we read (a
 * new holder got in between), it is put back.
 */
async function takeOver(lockPath: string, stale: LockOwner | 'unreadable'): Promise<void> {
  const moved = `${lockPath}.stale-${randomUUID()}`;
  try {
    await rename(lockPath, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const what = await readOwner(moved);
  const isStale = stale === 'unreadable' ? what === 'unreadable' : what !== 'missing' && what !== 'unreadable' && what.token === stale.token;
  if (!isStale) await link(moved, lockPath).catch(() => undefined);
  await unlink(moved).catch(() => undefined);
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or undefined off Linux. */
function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: count from the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}
