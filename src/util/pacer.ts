import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets a long run of synchronous work share the event loop: the caller calls
 * `step()` after each piece (a file-system call of the sweep, a row of a large
 * result) and awaits it; every `every` steps it yields one turn, so a server
 * sweeping 100,000 files or screening 100,000 rows stalls other requests for
 * milliseconds at a time, never seconds.
 *
 * Why synchronous calls at all: measured here, lstat+unlink through the
 * promise API ran 2-6× slower than the same calls made synchronously (each
 * async call crosses libuv's 4-thread pool), and the sweep is measured
 * against `find -delete`.
 */
export class Pacer {
  private count = 0;

  constructor(private readonly every = 256) {}

  /**
   * Resolves immediately except once every `every` units of work (a call is one unit
   * unless it says it weighs more: a row of 100,000 columns is not one row's work),
   * when it yields a turn of the event loop.
   */
  step(units = 1): Promise<void> | undefined {
    this.count += units;
    if (this.count < this.every) return undefined;
    this.count = 0;
    return nextTurn().then(() => undefined);
  }
}
