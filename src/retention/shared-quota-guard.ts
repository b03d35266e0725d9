import { lstat } from 'node:fs/promises';
import type { Coordinator } from '../coordination/coordinator.js';
import { StoreClock } from '../coordination/store-clock.js';
import { withinDeadline } from '../coordination/within-deadline.js';
import type { Logger } from '../log/logger.js';
import { measureConversation, measureSandbox } from './disk-usage.js';
import type { ExpiryLog } from './expired-log.js';
import { hasQuota } from './quota.js';
import { evictForSpill, type QuotaCheck, type QuotaGuard, type QuotaStats } from './quota-guard.js';
import { addTo, emptyTally } from './sweep-report.js';

/** The fleet's running totals: a hash of bytes, field "all" for the root and one field per conversation key. */
export const quotaTotalsKey = 'quota:bytes';
/** What spills added since the current measurement began (added on top of it when it ends). */
export const quotaSinceKey = 'quota:bytes-since-measure';
const measureLockKey = 'quota:measure-lock';
/** Eviction rounds one spill's check runs at most (later rounds only when spills landed meanwhile). */
const maxEvictRounds = 3;

/** One replica evicts in a conversation at a time. */
export const evictLockKey = (conversationId: string) => `quota:evict-lock:${conversationId}`;
// Conversation keys are "<principal>/<conversation>" and always hold a "/": these fields never collide with one.
const allField = 'all';
const measuredAtField = 'measuredAt';

/** How long measured totals are trusted before one replica measures the sandbox again. */
const remeasureAfterMs = 60_000;
/** A replica that dies while measuring blocks the next measurement at most this long. */
const measureLeaseMs = 5 * 60_000;
const evictLeaseMs = 60_000;
/** Over the root limit, totals measured longer ago than this are measured again before anything is evicted. */
const freshForRootMs = 10_000;
/** A spill never waits longer than this on the store: a store that does not answer counts as unreachable. */
const defaultTimeoutMs = 2_000;

export interface SharedDiskQuotaGuardOptions {
  root: string;
  coordinator: Coordinator;
  now?: () => Date;
  /** Where evicted files are recorded (the fleet's shared log); default each conversation's .expired.jsonl. */
  expiryLog?: ExpiryLog;
  /** The longest a quota check waits on the store (default 2 s). */
  timeoutMs?: number;
}

/**
 * The disk quota of a fleet: replicas sharing one sandbox decide "over the
 * limit" from running totals kept in the coordination store, so the limits
 * hold for the sum of every replica's spills, not each one's own.
 *
 * - Each spill adds its bytes atomically (one script over the totals and the
 *   tally since the last measurement) and gets the new totals back.
 * - Once a minute one replica, holding the measure lock, measures the sandbox
 *   and replaces the totals in one script with what it measured plus what was
 *   added while it measured (a spill may then count twice until the next
 *   measurement: that errs toward evicting early, never late). A fleet whose
 *   totals were never measured (or that Redis forgot) measures before checking.
 * - Evictions in a conversation are serialized across replicas by a lease
 *   lock; a replica that cannot take it skips this round (the holder is
 *   already evicting). The holder measures the conversation exactly, corrects
 *   the shared count by the difference and subtracts what it evicted.
 * - The store unreachable: the spill is kept, a warning is logged (once per
 *   outage), the check is skipped, /healthz shows it (stats().shared), and
 *   the totals are measured again once the store is back.
 */
export class SharedDiskQuotaGuard implements QuotaGuard {
  private readonly root: string;
  private readonly coordinator: Coordinator;
  private readonly now: () => Date;
  private readonly expiryLog: ExpiryLog | undefined;
  private readonly timeoutMs: number;
  /** "When measured" is written by one replica and read by others: on the store's clock, not each node's. */
  private readonly clock: StoreClock;
  private readonly evicted = emptyTally();
  private lastEvictionAt: string | undefined;
  private bytes: number | undefined;
  private lastTriedMs = Number.NEGATIVE_INFINITY;
  private measuring: Promise<boolean> | undefined;
  /** The shared totals missed something (the store was unreachable, a sweep ran): measure at the next spill. */
  private stale = false;
  /** Conversations left over their limit by outputs alone: not measured again before this time. */
  private readonly quietUntil = new Map<string, number>();
  private skippedChecks = 0;
  private outage: { since: string; lastError: string } | undefined;
  /** The last logger a check or warm-up brought, for the measurement forget() starts. */
  private logger: Logger | undefined;

  constructor(options: SharedDiskQuotaGuardOptions) {
    this.root = options.root;
    this.coordinator = options.coordinator;
    this.now = options.now ?? (() => new Date());
    this.expiryLog = options.expiryLog;
    this.timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    this.clock = new StoreClock(this.coordinator, () => this.now().getTime(), remeasureAfterMs);
  }

  afterWrite(input: QuotaCheck): Promise<void> {
    return this.check(input).catch((error: unknown) => this.failed(error, input.logger));
  }

  warm(logger: Logger): void {
    this.logger = logger;
    this.bounded(this.coordinator.addCounts([quotaTotalsKey], { [measuredAtField]: 0 }))
      .then(async (totals) => {
        this.reachable(logger);
        await this.bounded(this.clock.sync());
        if (this.isStale(totals[measuredAtField] ?? 0)) this.measureInBackground(logger);
      })
      .catch((error: unknown) => this.failed(error, logger));
  }

  forget(): void {
    this.stale = true;
    this.quietUntil.clear();
    if (this.logger !== undefined) this.measureInBackground(this.logger);
  }

  stats(): QuotaStats {
    const stats: QuotaStats = {
      evicted: { ...this.evicted },
      shared: {
        store: this.coordinator.store,
        available: this.outage === undefined,
        skippedChecks: this.skippedChecks,
        ...(this.outage === undefined ? {} : { unavailableSince: this.outage.since, lastError: this.outage.lastError }),
      },
    };
    if (this.lastEvictionAt !== undefined) stats.lastEvictionAt = this.lastEvictionAt;
    if (this.bytes !== undefined) stats.bytes = this.bytes;
    return stats;
  }

  private async check(input: QuotaCheck): Promise<void> {
    const { limits, conversationId, logger } = input;
    if (!hasQuota(limits)) return;
    this.logger = logger;
    const added = await bytesOf(input.written);
    const fields = { [allField]: added, [conversationId]: added, [measuredAtField]: 0 };
    let totals = await this.bounded(this.coordinator.addCounts([quotaTotalsKey, quotaSinceKey], fields));
    this.reachable(logger);
    await this.bounded(this.clock.sync());
    const nowMs = this.now().getTime();
    if ((totals[measuredAtField] ?? 0) === 0) {
      // Never measured (a new fleet, or Redis lost its data): wait for the measurement; while another replica measures, skip this check.
      if (!(await this.measure())) return;
      totals = await this.bounded(this.coordinator.addCounts([quotaTotalsKey], { [allField]: 0, [conversationId]: 0, [measuredAtField]: 0 }));
    } else if (this.isStale(totals[measuredAtField] ?? 0)) {
      this.measureInBackground(logger);
    }
    this.bytes = totals[allField];
    if (nowMs < (this.quietUntil.get(conversationId) ?? 0) || !isOver(totals, input)) return;
    if (
      isOver(totals, { ...input, limits: { ...limits, maxBytesPerConversation: 0 } }) &&
      !(this.clock.nowMs() - (totals[measuredAtField] ?? 0) < freshForRootMs)
    ) {
      // Over the whole root: one conversation's exact size cannot correct the root total (a sweep, another
      // writer, spills counted twice), and evicting for a phantom loses files. Measure all first, as one process does.
      if (!(await this.measure())) return;
      totals = await this.bounded(this.coordinator.addCounts([quotaTotalsKey], { [allField]: 0, [conversationId]: 0, [measuredAtField]: 0 }));
      if (!isOver(totals, input)) return;
    }
    // A replica that finds the lock held skips its round; the holder looks again after it let go,
    // so spills counted while it evicted (theirs) are not left over the limit.
    for (let round = 0; round < maxEvictRounds; round += 1) {
      if (!(await this.evict(input, nowMs))) return;
      totals = await this.bounded(this.coordinator.addCounts([quotaTotalsKey], { [allField]: 0, [conversationId]: 0 }));
      if (nowMs < (this.quietUntil.get(conversationId) ?? 0) || !isOver(totals, input)) return;
    }
  }

  /** One eviction round under the conversation's lock; false when another holds it (that one makes the room). */
  private async evict(input: QuotaCheck, nowMs: number): Promise<boolean> {
    const { conversationId, limits, logger } = input;
    const lease = await this.bounded(this.coordinator.tryLock(evictLockKey(conversationId), evictLeaseMs));
    if (lease === undefined) return false;
    try {
      // The count as it is now, under the lock: one read before it may predate another holder's round,
      // whose evictions it would then subtract a second time (a count below the disk lets the limit slip).
      const shared = await this.bounded(this.coordinator.addCounts([quotaTotalsKey], { [allField]: 0, [conversationId]: 0, [measuredAtField]: 0 }));
      const conversation = await measureConversation(this.root, conversationId, { withFiles: true, nowMs });
      // The exact size replaces the shared count (which may hold spills counted twice, or miss other writers).
      const correction = conversation.bytes - (shared[conversationId] ?? 0);
      const usage = { bytes: (shared[allField] ?? 0) + correction, conversations: new Map([[conversationId, conversation]]) };
      const { chosen, evicted, bytesAfter } = await evictForSpill({
        root: this.root,
        usage,
        check: input,
        now: this.now(),
        ...(this.expiryLog === undefined ? {} : { expiryLog: this.expiryLog }),
      });
      addTo(this.evicted, evicted.bytes, evicted.files);
      if (evicted.files > 0) this.lastEvictionAt = this.now().toISOString();
      const change = correction - evicted.bytes;
      if (change !== 0) {
        // Only onto the totals this round read: a measurement that replaced them meanwhile already
        // counts these files as it found them (its walk may have seen them gone, or still there:
        // at worst an overcount until the next one), and the correction would come off it twice.
        const applied = await this.bounded(
          this.coordinator.addCountsIf(
            quotaTotalsKey,
            { [allField]: change, [conversationId]: change },
            { field: measuredAtField, equals: shared[measuredAtField] ?? 0 },
          ),
        );
        if (applied) this.bytes = (shared[allField] ?? 0) + change;
      }
      // What the plan leaves, not what was done: a file skipped because it changed under the
      // eviction (another replica's spill still landing) is tried again at the next check; only a
      // conversation that has nothing more to give is left alone for a while.
      const conversationAfter = conversation.bytes - chosen.reduce((sum, file) => sum + file.unitBytes, 0);
      const stillOver =
        (limits.maxBytes > 0 && bytesAfter > limits.maxBytes) || (limits.maxBytesPerConversation > 0 && conversationAfter > limits.maxBytesPerConversation);
      if (stillOver) {
        this.quietUntil.set(conversationId, nowMs + remeasureAfterMs);
        logger.warn(
          {
            bytes: bytesAfter,
            conversationBytes: conversationAfter,
            maxBytes: limits.maxBytes,
            maxBytesPerConversation: limits.maxBytesPerConversation,
            conversationId,
          },
          "disk quota still exceeded: this conversation has only outputs/ and its newest spill left, and other conversations' files are never evicted for it",
        );
      }
    } finally {
      await this.bounded(lease.release()).catch(() => undefined);
    }
    return true;
  }

  /** Whether the shared totals are due for a measurement (measuredAt is on the store's clock). */
  private isStale(measuredAt: number): boolean {
    // The local rate limit: one replica tries at most once a minute, whatever the others do.
    const tooSoon = this.now().getTime() - this.lastTriedMs <= remeasureAfterMs;
    return measuredAt === 0 || this.stale || (this.clock.nowMs() - measuredAt > remeasureAfterMs && !tooSoon);
  }

  /** Measures the sandbox under the fleet's measure lock; false when another replica holds it. */
  private measure(): Promise<boolean> {
    this.measuring ??= this.measureOnce().finally(() => {
      this.measuring = undefined;
    });
    return this.measuring;
  }

  private async measureOnce(): Promise<boolean> {
    const startedMs = this.now().getTime();
    this.lastTriedMs = startedMs;
    const lease = await this.bounded(this.coordinator.tryLock(measureLockKey, measureLeaseMs));
    if (lease === undefined) return false;
    try {
      await this.bounded(this.clock.sync());
      const measuredAtMs = this.clock.nowMs();
      // From here on, spills are tallied apart and added on top of what the walk finds.
      await this.bounded(this.coordinator.replaceCounts(quotaSinceKey, {}));
      const usage = await measureSandbox(this.root, { withFiles: false, nowMs: startedMs });
      const values: Record<string, number> = { [allField]: usage.bytes, [measuredAtField]: measuredAtMs };
      for (const [id, conversation] of usage.conversations) values[id] = conversation.bytes;
      await this.bounded(this.coordinator.replaceCounts(quotaTotalsKey, values, { plusFrom: quotaSinceKey }));
      this.stale = false;
      return true;
    } finally {
      await this.bounded(lease.release()).catch(() => undefined);
    }
  }

  private measureInBackground(logger: Logger): void {
    this.measure().catch((error: unknown) => this.failed(error, logger));
  }

  private reachable(logger: Logger): void {
    if (this.outage === undefined) return;
    logger.info({ since: this.outage.since, skippedChecks: this.skippedChecks }, 'disk quota: the coordination store answers again; measuring the sandbox');
    this.outage = undefined;
    this.stale = true;
  }

  private failed(error: unknown, logger: Logger): void {
    if ((error as { code?: unknown }).code !== 'COORDINATION_UNAVAILABLE') {
      logger.warn({ err: error }, 'disk quota check failed; the spill was kept');
      return;
    }
    this.skippedChecks += 1;
    this.stale = true;
    const message = (error as Error).message;
    if (this.outage !== undefined) {
      this.outage.lastError = message;
      return;
    }
    this.outage = { since: this.now().toISOString(), lastError: message };
    logger.warn(
      { err: error, store: this.coordinator.store },
      'disk quota: the coordination store cannot be reached; spills are kept and not checked against the quota until it answers again',
    );
  }

  private bounded<T>(operation: Promise<T>): Promise<T> {
    return withinDeadline(operation, this.timeoutMs, this.coordinator.store);
  }
}

/** Whether the totals pass a limit for the conversation of `check`. */
function isOver(totals: Readonly<Record<string, number>>, check: Pick<QuotaCheck, 'conversationId' | 'limits'>): boolean {
  const { limits } = check;
  return (
    (limits.maxBytesPerConversation > 0 && (totals[check.conversationId] ?? 0) > limits.maxBytesPerConversation) ||
    (limits.maxBytes > 0 && (totals[allField] ?? 0) > limits.maxBytes)
  );
}

/** The bytes of the files just written (a file gone already counts 0). */
async function bytesOf(files: readonly string[]): Promise<number> {
  let total = 0;
  for (const file of files)
    total += await lstat(file).then(
      (info) => info.size,
      () => 0,
    );
  return total;
}
