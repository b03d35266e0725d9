import type { Coordinator } from './coordinator.js';

/**
 * The coordination store's clock as this node reads it. Node clocks may differ
 * by minutes; the store's is one clock for the whole fleet, so times written
 * by one node and compared on another (when the sandbox was last measured)
 * are taken from it. The offset to the local clock is read again at most once
 * per `refreshMs`: between reads, the time costs no round trip.
 */
export class StoreClock {
  private offsetMs = 0;
  private readAtMs = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly coordinator: Pick<Coordinator, 'timeMs'>,
    private readonly localNowMs: () => number,
    private readonly refreshMs = 60_000,
  ) {}

  /** Reads the store's time again when the offset is older than refreshMs; rejects as the store does. */
  sync(): Promise<void> {
    if (this.localNowMs() - this.readAtMs < this.refreshMs) return Promise.resolve();
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** The store's time now, in ms (the local clock until the first sync). */
  nowMs(): number {
    return this.localNowMs() + this.offsetMs;
  }

  private async read(): Promise<void> {
    const before = this.localNowMs();
    const storeMs = await this.coordinator.timeMs();
    const after = this.localNowMs();
    // The store answered somewhere within the round trip: its middle is the best guess.
    this.offsetMs = storeMs - (before + after) / 2;
    this.readAtMs = after;
  }
}
