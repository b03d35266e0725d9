import { SpillwayError } from '../errors.js';
import type { Coordinator } from '../coordination/coordinator.js';
import type { Logger } from '../log/logger.js';

/** What the sweep needs of a lock: to give it up. */
export interface HeldSweepLock {
  release(): Promise<void>;
}

/** Takes the sweep lock of a sandbox root or fails with RETENTION_LOCKED. */
export type SweepLockTaker = (root: string) => Promise<HeldSweepLock>;

/** The coordinator key of the fleet's sweep lock (one sandbox per key prefix). */
export const sweepLockKey = 'sweep-lock';

export interface LeaseSweepLockOptions {
  /** How long the lock outlives a holder that stopped renewing (died). Default 60 s; renewed every third of it. */
  leaseMs?: number;
  logger?: Logger;
}

/**
 * The sweep lock of a fleet: a lease in the coordination store. The holder
 * renews it while it sweeps; a holder that dies (a replica killed mid-sweep,
 * on any machine) stops renewing and the next sweep can take the lock once
 * the lease has run out. Replaces the pid file lock, which cannot tell
 * whether a holder on another machine is alive.
 */
export function leaseSweepLock(coordinator: Coordinator, options: LeaseSweepLockOptions = {}): SweepLockTaker {
  const leaseMs = options.leaseMs ?? 60_000;
  return async (root) => {
    const lease = await coordinator.tryLock(sweepLockKey, leaseMs);
    if (lease === undefined) {
      throw new SpillwayError(
        'RETENTION_LOCKED',
        `Another retention sweep is running on ${root} (another replica holds the fleet's sweep lock in ${coordinator.store}); try again when it has finished.`,
        {
          root,
          store: coordinator.store,
        },
      );
    }
    const renew = setInterval(
      () => {
        lease.renew(leaseMs).then(
          (held) => {
            if (!held) options.logger?.warn({ root }, 'the sweep lock lease ran out while sweeping; another sweep may start');
          },
          (error: unknown) => options.logger?.warn({ err: error }, 'the sweep lock lease could not be renewed'),
        );
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    return {
      async release() {
        clearInterval(renew);
        await lease.release();
      },
    };
  };
}
