import PQueue from 'p-queue';

/**
 * Turns at something limited (script workers, SQLite query processes): at most
 * `concurrency` held at once, the rest wait in order (p-queue). A waiter whose
 * signal aborts leaves the line at once, not when its turn would have come.
 */
export class TurnQueue {
  private readonly queue: PQueue;
  private waitingCount = 0;

  constructor(concurrency: number) {
    this.queue = new PQueue({ concurrency });
  }

  /** Changes the limit for the turns given from now on (a config reload). */
  set concurrency(concurrency: number) {
    if (this.queue.concurrency !== concurrency) this.queue.concurrency = concurrency;
  }

  /** Turns held now. */
  get running(): number {
    return this.queue.pending;
  }

  /** Callers waiting for a turn (cancelled ones not counted). */
  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Waits for a turn and resolves with the function that ends it (call it
   * once, in a `finally`). Rejects with `cancelled()` when the signal aborts
   * while waiting; a signal already aborted does not stop a free turn.
   */
  take(signal: AbortSignal | undefined, cancelled: () => Error): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let settled = false;
      this.waitingCount += 1;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        this.waitingCount -= 1;
        reject(cancelled());
      };
      void this.queue.add(
        () =>
          new Promise<void>((end) => {
            signal?.removeEventListener('abort', onAbort);
            // Cancelled while waiting: the turn passes straight on.
            if (settled) return end();
            settled = true;
            this.waitingCount -= 1;
            resolve(end);
          }),
      );
      if (!settled) signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
