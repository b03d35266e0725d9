import { EventEmitter } from 'node:events';
import type { UpstreamTimerKind, UpstreamTimers } from '../../src/upstream/upstream-timers.js';

interface Pending {
  kind: UpstreamTimerKind;
  at: number;
  run: () => void;
}

/**
 * Upstream timers that only move when the test says so: `fire(kind)` waits
 * until a timer of that kind is scheduled (an event, not a poll), moves the
 * clock to it and runs it. Nothing waits for real time.
 */
export class ManualTimers extends EventEmitter<{ scheduled: [UpstreamTimerKind] }> implements UpstreamTimers {
  private clock = Date.parse('2026-12-01T12:00:00.000Z');
  private readonly pending = new Set<Pending>();

  now(): Date {
    return new Date(this.clock);
  }

  schedule(kind: UpstreamTimerKind, delayMs: number, run: () => void): () => void {
    const entry: Pending = { kind, at: this.clock + delayMs, run };
    this.pending.add(entry);
    this.emit('scheduled', kind);
    return () => this.pending.delete(entry);
  }

  /** The kinds of the timers now pending. */
  kinds(): UpstreamTimerKind[] {
    return [...this.pending].map((entry) => entry.kind);
  }

  /** Waits for a pending timer of `kind`, moves the clock to its time and runs it; resolves with the delay it had. */
  async fire(kind: UpstreamTimerKind): Promise<number> {
    let entry = this.find(kind);
    while (entry === undefined) {
      await new Promise<void>((resolve) => {
        const listener = (scheduled: UpstreamTimerKind) => {
          if (scheduled !== kind) return;
          this.off('scheduled', listener);
          resolve();
        };
        this.on('scheduled', listener);
      });
      entry = this.find(kind);
    }
    this.pending.delete(entry);
    const delay = entry.at - this.clock;
    this.clock = Math.max(this.clock, entry.at);
    entry.run();
    return delay;
  }

  private find(kind: UpstreamTimerKind): Pending | undefined {
    return [...this.pending].filter((entry) => entry.kind === kind).sort((a, b) => a.at - b.at)[0];
  }
}
