import { lstat } from 'node:fs/promises';
import type { Logger } from '../log/logger.js';
import { dayMs } from './parse-duration.js';
import { measureConversation, measureSandbox, type SandboxUsage } from './disk-usage.js';
import { chooseEvictions, evictFiles, hasQuota, type QuotaLimits } from './quota.js';
import { addTo, emptyTally, type Tally } from './sweep-report.js';

/** How long a measured sandbox size is trusted before it is measured again (other writers: exports, scripts, operators). */
const remeasureAfterMs = 60_000;

export interface QuotaStats {
  /** Files removed to make room for spills since the process started. */
  evicted: Tally;
  lastEvictionAt?: string;
  /** Last known size of the sandbox in bytes (outputs included), when a quota is set. */
  bytes?: number;
}

/**
 * Keeps a sandbox under retention.maxBytes / maxBytesPerConversation as spills
 * are written. It keeps a running total (measured once, then increased by each
 * spill and measured again in the background every minute, since exports and
 * scripts write too); only when the total passes a limit does it measure
 * exactly and evict the oldest non-output files of the conversation that
 * wrote (never another conversation's). The spill just written is never
 * evicted. One guard per host (installDiskQuota); calls are serialized.
 */
export class DiskQuotaGuard {
  private total: number | undefined;
  private readonly byConversation = new Map<string, number>();
  private measuredAt = 0;
  private remeasuring: Promise<void> | undefined;
  /** After a pass that found nothing to evict (outputs fill the quota), wait before measuring again. */
  private quietUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly evicted = emptyTally();
  private lastEvictionAt: string | undefined;

  constructor(
    private readonly root: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Accounts for files just written to a conversation and evicts if a limit is passed. Never throws. */
  afterWrite(input: { conversationId: string; written: readonly string[]; limits: QuotaLimits; retentionDays: number; logger: Logger }): Promise<void> {
    const run = this.queue.then(() => this.check(input));
    this.queue = run.catch(() => undefined);
    return run.catch((error: unknown) => input.logger.warn({ err: error }, 'disk quota check failed; the spill was kept'));
  }

  /** Starts measuring the sandbox now, so the first spill under a quota does not wait for it. */
  warm(logger: Logger): void {
    if (this.total === undefined) this.remeasureInBackground(logger);
  }

  /** Forgets the running total (after a sweep changed the sandbox). */
  forget(): void {
    this.total = undefined;
    this.byConversation.clear();
    this.quietUntil = 0;
  }

  stats(): QuotaStats {
    const stats: QuotaStats = { evicted: { ...this.evicted } };
    if (this.lastEvictionAt !== undefined) stats.lastEvictionAt = this.lastEvictionAt;
    if (this.total !== undefined) stats.bytes = this.total;
    return stats;
  }

  private async check(input: {
    conversationId: string;
    written: readonly string[];
    limits: QuotaLimits;
    retentionDays: number;
    logger: Logger;
  }): Promise<void> {
    const { limits, conversationId } = input;
    if (!hasQuota(limits)) return;
    const nowMs = this.now().getTime();
    if (this.total === undefined) {
      // The first spill waits for the first measurement (a server starts it early: see warm()).
      this.remeasureInBackground(input.logger);
      await this.remeasuring;
      if (this.total === undefined) return;
    } else {
      let added = 0;
      for (const file of input.written)
        added += await lstat(file).then(
          (info) => info.size,
          () => 0,
        );
      this.total += added;
      this.byConversation.set(conversationId, (this.byConversation.get(conversationId) ?? 0) + added);
      if (nowMs - this.measuredAt > remeasureAfterMs) this.remeasureInBackground(input.logger);
    }
    const conversationOver = limits.maxBytesPerConversation > 0 && (this.byConversation.get(conversationId) ?? 0) > limits.maxBytesPerConversation;
    const sandboxOver = limits.maxBytes > 0 && (this.total ?? 0) > limits.maxBytes;
    if ((!conversationOver && !sandboxOver) || nowMs < this.quietUntil) return;

    // Over a limit: measure exactly what may go, oldest first.
    let usage: SandboxUsage;
    if (sandboxOver) {
      usage = await measureSandbox(this.root, { withFiles: true, nowMs });
      this.adopt(usage, nowMs);
    } else {
      const conversation = await measureConversation(this.root, conversationId, { withFiles: true, nowMs });
      usage = { bytes: this.total ?? conversation.bytes, conversations: new Map([[conversationId, conversation]]) };
      this.byConversation.set(conversationId, conversation.bytes);
    }
    const protect = new Set(input.written);
    // Only the writing conversation pays for its writes; another conversation's files are never evicted here.
    const choice = chooseEvictions(usage, limits, protect, conversationId);
    const result = await evictFiles(this.root, choice.files, { now: this.now(), expiredLogKeepMs: Math.max(4 * input.retentionDays * dayMs, 30 * dayMs) });
    addTo(this.evicted, result.evicted.bytes, result.evicted.files);
    if (this.total !== undefined) this.total -= result.evicted.bytes;
    for (const file of choice.files) {
      this.byConversation.set(file.conversationId, (this.byConversation.get(file.conversationId) ?? 0) - file.unitBytes);
    }
    if (result.evicted.files > 0) {
      this.lastEvictionAt = this.now().toISOString();
      input.logger.info(
        {
          evictedFiles: result.evicted.files,
          evictedBytes: result.evicted.bytes,
          bytesAfter: this.total,
          maxBytes: limits.maxBytes,
          maxBytesPerConversation: limits.maxBytesPerConversation,
        },
        'disk quota: evicted the oldest files',
      );
    }
    if (choice.bytesAfter > limits.maxBytes && limits.maxBytes > 0) {
      this.quietUntil = nowMs + remeasureAfterMs;
      input.logger.warn(
        { bytes: choice.bytesAfter, maxBytes: limits.maxBytes, conversationId },
        "disk quota still exceeded: this conversation has only outputs/ and its newest spill left, and other conversations' files are never evicted for it",
      );
    }
    if (result.problems.length > 0) input.logger.warn({ problems: result.problems.slice(0, 20) }, 'disk quota: some files could not be evicted');
  }

  private adopt(usage: SandboxUsage, nowMs: number): void {
    this.total = usage.bytes;
    this.byConversation.clear();
    for (const [id, conversation] of usage.conversations) this.byConversation.set(id, conversation.bytes);
    this.measuredAt = nowMs;
  }

  /** Re-measures without holding up the spill; spills written meanwhile may be counted twice, which only errs toward evicting early. */
  private remeasureInBackground(logger: Logger): void {
    if (this.remeasuring !== undefined) return;
    const startedMs = this.now().getTime();
    this.measuredAt = startedMs;
    this.remeasuring = measureSandbox(this.root, { withFiles: false, nowMs: startedMs })
      .then((usage) => this.adopt(usage, startedMs))
      .catch((error: unknown) => logger.warn({ err: error }, 'disk quota: measuring the sandbox failed'))
      .finally(() => {
        this.remeasuring = undefined;
      });
  }
}
