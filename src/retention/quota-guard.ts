import type { Logger } from '../log/logger.js';
import type { EvictableFile, SandboxUsage } from './disk-usage.js';
import type { ExpiryLog } from './expired-log.js';
import { dayMs } from './parse-duration.js';
import { chooseEvictions, evictFiles, type QuotaLimits } from './quota.js';
import type { Tally } from './sweep-report.js';

/** One spill's quota check: the files it wrote (never evicted by it) in one conversation. */
export interface QuotaCheck {
  /** "<principal>/<conversation>" */
  conversationId: string;
  written: readonly string[];
  limits: QuotaLimits;
  retentionDays: number;
  logger: Logger;
}

/** The shared totals' state in a fleet (coordination.redis), for /healthz. */
export interface SharedQuotaHealth {
  store: string;
  /** False while the store cannot be reached: spills are kept and not checked. */
  available: boolean;
  /** Spills whose quota check was skipped because the store could not be reached (since start). */
  skippedChecks: number;
  unavailableSince?: string;
  lastError?: string;
}

export interface QuotaStats {
  /** Files removed to make room for spills since the process started. */
  evicted: Tally;
  lastEvictionAt?: string;
  /** Last known size of the sandbox in bytes (outputs included), when a quota is set. */
  bytes?: number;
  /** Present when the totals are shared by a fleet. */
  shared?: SharedQuotaHealth;
}

/**
 * Keeps a sandbox under retention.maxBytes / maxBytesPerConversation as
 * spills are written: in one process (DiskQuotaGuard) or, in a fleet, from
 * totals shared through the coordination store (SharedDiskQuotaGuard).
 */
export interface QuotaGuard {
  /** Accounts for files just written to a conversation and evicts if a limit is passed. Never throws. */
  afterWrite(input: QuotaCheck): Promise<void>;
  /** Starts measuring the sandbox now, so the first spill under a quota does not wait for it. */
  warm(logger: Logger): void;
  /** The totals are stale (a sweep changed the sandbox): measure again. */
  forget(): void;
  stats(): QuotaStats;
}

/** "expired on …" answers outlive evicted files as long as the sweep keeps them. */
export function expiredLogKeepMs(retentionDays: number): number {
  return Math.max(4 * retentionDays * dayMs, 30 * dayMs);
}

/**
 * The eviction step of a spill's quota check, once a limit is passed: the
 * oldest non-output files of the writing conversation only (never another
 * conversation's, never the files just written), recorded before they go.
 * Logs what it did; returns the chosen files, what went and the bytes left.
 */
export async function evictForSpill(input: {
  root: string;
  usage: SandboxUsage;
  check: QuotaCheck;
  now: Date;
  expiryLog?: ExpiryLog;
}): Promise<{ chosen: EvictableFile[]; evicted: Tally; bytesAfter: number }> {
  const { check, usage } = input;
  const { limits, conversationId, logger } = check;
  const choice = chooseEvictions(usage, limits, new Set(check.written), conversationId);
  const result = await evictFiles(input.root, choice.files, {
    now: input.now,
    expiredLogKeepMs: expiredLogKeepMs(check.retentionDays),
    ...(input.expiryLog === undefined ? {} : { expiryLog: input.expiryLog }),
  });
  if (result.evicted.files > 0) {
    logger.info(
      {
        evictedFiles: result.evicted.files,
        evictedBytes: result.evicted.bytes,
        bytesAfter: usage.bytes - result.evicted.bytes,
        maxBytes: limits.maxBytes,
        maxBytesPerConversation: limits.maxBytesPerConversation,
      },
      'disk quota: evicted the oldest files',
    );
  }
  if (result.problems.length > 0) logger.warn({ problems: result.problems.slice(0, 20) }, 'disk quota: some files could not be evicted');
  return { chosen: choice.files, evicted: result.evicted, bytesAfter: choice.bytesAfter };
}
