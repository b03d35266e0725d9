import type { Config } from '../config/schema.js';
import type { Host } from '../host/host.js';
import type { ExpiryLog } from './expired-log.js';
import { installDiskQuota } from './install-disk-quota.js';
import type { SweepLockTaker } from './lease-sweep-lock.js';
import { dayMs } from './parse-duration.js';
import { hasQuota } from './quota.js';
import type { QuotaGuard } from './quota-guard.js';
import { recoverSandbox } from './recover-sandbox.js';
import type { LeftoverReport } from './recover-leftovers.js';
import { sweepSandbox } from './sweep.js';
import { SweepScheduler } from './sweep-scheduler.js';

export interface RetentionService {
  scheduler: SweepScheduler;
  /** The start-up recovery (begun at once, never awaited by serving; a failure is logged and resolves undefined). */
  recovered: Promise<LeftoverReport | undefined>;
  /** Applies a reloaded configuration (a new retention.cron reschedules; days and quota are read at each sweep). */
  applyConfig(config: Config): void;
  stop(): Promise<void>;
}

export interface StartRetentionOptions {
  now?: () => Date;
  /** The disk-quota guard already on this host's spills (createHost installs one); without it, one is installed here. */
  quota?: QuotaGuard;
  /** The sweep lock; default the pid file lock in the sandbox root (a fleet passes the Redis lease lock). */
  lock?: SweepLockTaker;
  /** Where swept files are recorded; default each conversation's .expired.jsonl (a fleet passes its shared log). */
  expiryLog?: ExpiryLog;
}

/**
 * Starts the scheduled sweep beside a serving host: node-cron on
 * retention.cron, the last sweep reported at /healthz under "retention", and
 * shutdown with the host (a sweep in progress is allowed to finish), and
 * the start-up recovery of what a crash left (recover-sandbox.ts). The
 * disk quota's running total is forgotten after each sweep.
 */
export function startRetention(host: Host, options: StartRetentionOptions = {}): RetentionService {
  const logger = host.logger.child({ component: 'retention' });
  const quota = options.quota ?? installDiskQuota(host, options.now === undefined ? {} : { now: options.now });
  const scheduler = new SweepScheduler({
    cron: host.config.retention.cron,
    logger,
    ...(options.now === undefined ? {} : { now: options.now }),
    onFinished: (last) =>
      host.emit('sweep', {
        outcome: last.outcome,
        ...(last.durationMs === undefined ? {} : { durationMs: last.durationMs }),
        filesRemoved: last.deleted?.files ?? 0,
        bytesRemoved: last.deleted?.bytes ?? 0,
      }),
    sweep: async () => {
      const { retention } = host.config;
      try {
        return await sweepSandbox({
          root: host.sandbox.root,
          olderThanMs: retention.days * dayMs,
          tempGraceMs: retention.tempGraceMs,
          quota: retention,
          logger,
          onRemoved: (removed) => announceRemoved(host, removed),
          ...(options.now === undefined ? {} : { now: options.now }),
          ...(options.lock === undefined ? {} : { lock: options.lock }),
          ...(options.expiryLog === undefined ? {} : { expiryLog: options.expiryLog }),
        });
      } finally {
        quota.forget();
      }
    },
  });
  scheduler.start();
  // Serving does not wait for it: a read of a file with a temporary second link repairs that file itself.
  const recovered = recoverSandbox({
    root: host.sandbox.root,
    graceMs: host.config.retention.tempGraceMs,
    logger,
    ...(options.now === undefined ? {} : { now: options.now }),
  }).catch((error: unknown) => {
    logger.warn({ err: error }, 'start-up recovery failed');
    return undefined;
  });
  if (hasQuota(host.config.retention)) quota.warm(logger);
  host.setHealthSource('retention', () => ({
    ...scheduler.health(),
    quota: { maxBytes: host.config.retention.maxBytes, maxBytesPerConversation: host.config.retention.maxBytesPerConversation, ...quota.stats() },
  }));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    scheduler.stop();
    await scheduler.whenIdle();
    await recovered;
  };
  host.onClose(stop);
  return {
    scheduler,
    recovered,
    applyConfig: (config) => scheduler.reschedule(config.retention.cron),
    stop,
  };
}

/** A swept file, announced as a host `file-changed` event (folders and whole conversations are not files: skipped). */
function announceRemoved(host: Host, removed: string): void {
  const [principal, conversationId, ...rest] = removed.split('/');
  const relative = rest.join('/');
  if (principal === undefined || conversationId === undefined || relative === '' || relative.endsWith('/')) return;
  host.emit('file-changed', { principal, conversationId, path: relative, change: 'removed' });
}
