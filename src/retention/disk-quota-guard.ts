import { lstat } from 'node:fs/promises';
import type { Logger } from '../log/logger.js';
import { measureConversation, measureSandbox, type SandboxUsage } from './disk-usage.js';
import { hasQuota } from './quota.js';
import { evictForSpill, type QuotaCheck, type QuotaGuard, type QuotaStats } from './quota-guard.js';
import { addTo, emptyTally } from './sweep-report.js';

/** How long a measured sandbox size is trusted before it is measured again (other writers: exports, scripts, operators). */
const remeasureAfterMs = 60_000;

export type { QuotaStats } from './quota-guard.js';

/**
 * Keeps a sandbox under retention.maxBytes / maxBytesPerConversation as spills
 * are written. It keeps a running total (measured once, then increased by each
 * spill and measured again in the background every minute, since exports and
 * scripts write too); only when the total passes a limit does it measure
 * exactly and evict the oldest non-output files of the conversation that
 * wrote (never another conversation's). The spill just written is never
 * evicted. One guard per host (installDiskQuota); calls are serialized.
 * One process only: a fleet shares its totals (SharedDiskQuotaGuard).
 */
export class DiskQuotaGuard implements QuotaGuard {
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
  afterWrite(input: QuotaCheck): Promise<void> {
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

  private async check(input: QuotaCheck): Promise<void> {
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
    const { chosen, evicted, bytesAfter } = await evictForSpill({ root: this.root, usage, check: input, now: this.now() });
    addTo(this.evicted, evicted.bytes, evicted.files);
    if (this.total !== undefined) this.total -= evicted.bytes;
    for (const file of chosen) {
      this.byConversation.set(file.conversationId, (this.byConversation.get(file.conversationId) ?? 0) - file.unitBytes);
    }
    if (evicted.files > 0) this.lastEvictionAt = this.now().toISOString();
    if (bytesAfter > limits.maxBytes && limits.maxBytes > 0) {
      this.quietUntil = nowMs + remeasureAfterMs;
      input.logger.warn(
        { bytes: bytesAfter, maxBytes: limits.maxBytes, conversationId },
        "disk quota still exceeded: this conversation has only outputs/ and its newest spill left, and other conversations' files are never evicted for it",
      );
    }
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
