import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import type { StartupLogger } from '../log/logger.js';

/**
 * Refuses a sandbox root that cannot become a writable folder (a file, a path
 * through a file, a folder without write permission) before anything starts,
 * so `spillway serve` ends with one line that names the key instead of a
 * stack trace from deep inside the start.
 */
export async function checkWritableFolder(dir: string, key: string): Promise<void> {
  const full = path.resolve(dir);
  let probe = full;
  for (;;) {
    try {
      const found = await stat(probe);
      if (!found.isDirectory()) {
        const what = probe === full ? 'is a file, not a folder' : `cannot be created: ${probe} is a file`;
        throw new SpillwayError('SANDBOX_ROOT_INVALID', `${key} (${full}) ${what}; point ${key} at a folder.`, { key, path: full });
      }
      await access(probe, constants.W_OK | constants.X_OK).catch(() => {
        throw new SpillwayError(
          'SANDBOX_ROOT_INVALID',
          `${key} (${full}) is not writable by this user (${probe}); fix its permissions or point ${key} elsewhere.`,
          {
            key,
            path: full,
          },
        );
      });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(probe) === probe) throw error;
      // Missing: it will be created, so its nearest existing ancestor must be a writable folder.
      probe = path.dirname(probe);
    }
  }
}

/** A system error at start (a folder that cannot be made, a file that cannot be read) as one line, without the stack. */
export function startupError(error: unknown): unknown {
  if (SpillwayError.is(error)) return error;
  const system = error as NodeJS.ErrnoException;
  if (typeof system.code === 'string' && typeof system.syscall === 'string') {
    const where = system.path === undefined ? '' : ` ${system.path}`;
    return new SpillwayError(
      'INTERNAL',
      `Cannot start: ${system.syscall}${where} failed (${system.code}).`,
      { syscall: system.syscall, path: system.path, errno: system.code },
      { cause: error },
    );
  }
  return error;
}

/**
 * A start failed: its held log lines are dropped, since the CLI's one line says
 * what happened, unless log.level asked for debug detail, which gets them.
 */
export function startFailed(startup: StartupLogger): void {
  if (startup.logger.isLevelEnabled('debug')) startup.release();
  else startup.discard();
}
