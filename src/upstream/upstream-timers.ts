/** What an upstream connection waits on: a handshake deadline, a back-off, an idle ping, a ping's answer. */
export type UpstreamTimerKind = 'handshake' | 'reconnect' | 'ping' | 'ping-timeout';

/**
 * The clock and timers of the upstream connections, injectable so a test can
 * move time itself (fire the handshake deadline or the idle ping) instead of
 * waiting for it.
 */
export interface UpstreamTimers {
  now(): Date;
  /** Runs `run` after `delayMs`; the returned function cancels it. */
  schedule(kind: UpstreamTimerKind, delayMs: number, run: () => void): () => void;
}

/** Wall-clock time and Node's timers (unref'd: a pending retry or ping never keeps the process alive). */
export const systemTimers: UpstreamTimers = {
  now: () => new Date(),
  schedule(_kind, delayMs, run) {
    const timer = setTimeout(run, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
