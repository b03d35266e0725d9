import { SpillwayError, type ErrorCode } from '../errors.js';
import { formatCount } from './format.js';

/** How much of one kind of work is let in; read on every admission, so a configuration reload applies to the next call. */
export interface GateLimits {
  /** Admitted calls doing the work at once. */
  running: number;
  /** Admitted calls waiting for a running slot; one more is refused at once. */
  waiting: number;
  /** A call waiting longer than this for a slot is refused (shorter than a client's request timeout). */
  waitMs: number;
}

/** server.queueWaitMs's default, for gates made without a configuration (embedders, tests). */
export const defaultQueueWaitMs = 30_000;

/** Limits of a pool: `running` at once, `maxQueue` waiting, each wait at most `queueWaitMs` (default 30 s). */
export function poolLimits(running: number, caps: { maxQueue: number; queueWaitMs?: number | undefined }): GateLimits {
  return { running, waiting: caps.maxQueue, waitMs: caps.queueWaitMs ?? defaultQueueWaitMs };
}

/** Timers the gate's deadlines use; tests replace them to fire a deadline on demand. */
export interface GateTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface AdmissionGateOptions {
  /** The queue's name in health reports and in refusals' details.queue: "exports", "upstream:github". */
  name: string;
  /** What one admitted call is, for the refusal's text: "export", "chart", "query". */
  noun: string;
  /** The plural of `noun` when it is not noun + "s" ("calls to github"). */
  plural?: string;
  limits: () => GateLimits;
  /** Code of a refusal (a retryable one). Default BUSY. */
  code?: ErrorCode;
  /** The configuration keys that set the limits, named in refusals. */
  keys?: string;
  timers?: GateTimers;
}

/** One queue's state as /healthz and the metrics show it. */
export interface GateStats {
  running: number;
  waiting: number;
  /** running + waiting allowed (the refusal's details.limit). */
  limit: number;
  maxRunning: number;
  maxWaiting: number;
  waitMs: number;
  admitted: number;
  refused: { full: number; deadline: number };
  peak: { running: number; waiting: number };
}

/** Told when a call starts waiting and when it gets its slot (progress notifications). */
export interface AdmitOptions {
  signal?: AbortSignal;
  /** Called once when the call has to wait, with how many are ahead of it. */
  onWaiting?: (ahead: number) => void;
}

interface Waiter {
  grant: () => void;
  fail: (error: Error) => void;
}

const realTimers: GateTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Admission control for one kind of work: at most `running` at once, at most
 * `waiting` in line, and each wait bounded by `waitMs`. A call past the caps is
 * refused at once with a coded, retryable error that says how busy it is; a
 * call still waiting at its deadline is refused the same way rather than left
 * to run into the client's timeout. The gate counts its own admissions, so the
 * caps hold whatever the pool behind it does with queued tasks.
 */
export class AdmissionGate {
  readonly name: string;
  private running = 0;
  private readonly line: Waiter[] = [];
  private admitted = 0;
  private readonly refused = { full: 0, deadline: 0 };
  private readonly peak = { running: 0, waiting: 0 };
  private readonly timers: GateTimers;

  constructor(private readonly options: AdmissionGateOptions) {
    this.name = options.name;
    this.timers = options.timers ?? realTimers;
  }

  /**
   * Waits for a slot and resolves with the function that frees it (call it once,
   * in a `finally`). Rejects with the gate's busy code when the line is full or
   * the wait passes its deadline, and with a TOOL_FAILED when the signal aborts.
   */
  admit(options: AdmitOptions = {}): Promise<() => void> {
    const limits = this.options.limits();
    if (this.running < limits.running && this.line.length === 0) return Promise.resolve(this.take());
    if (this.line.length >= limits.waiting) {
      this.refused.full += 1;
      return Promise.reject(this.refusal('full', limits));
    }
    return new Promise((resolve, reject) => {
      const { signal } = options;
      const leave = () => {
        const index = this.line.indexOf(waiter);
        if (index >= 0) this.line.splice(index, 1);
        this.timers.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.take());
        },
        fail: (error) => {
          leave();
          reject(error);
        },
      };
      const onAbort = () => waiter.fail(new SpillwayError('TOOL_FAILED', `The call was cancelled while it waited for its turn (${this.name} queue).`));
      const timer = this.timers.setTimeout(() => {
        this.refused.deadline += 1;
        waiter.fail(this.refusal('deadline', limits));
      }, limits.waitMs);
      if (signal?.aborted === true) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
      this.peak.waiting = Math.max(this.peak.waiting, this.line.length);
      options.onWaiting?.(this.line.length - 1 + this.running);
    });
  }

  /** Runs `work` once admitted, freeing the slot when it settles. */
  async run<T>(work: () => Promise<T>, options: AdmitOptions = {}): Promise<T> {
    const release = await this.admit(options);
    try {
      return await work();
    } finally {
      release();
    }
  }

  stats(): GateStats {
    const limits = this.options.limits();
    return {
      running: this.running,
      waiting: this.line.length,
      limit: limits.running + limits.waiting,
      maxRunning: limits.running,
      maxWaiting: limits.waiting,
      waitMs: limits.waitMs,
      admitted: this.admitted,
      refused: { ...this.refused },
      peak: { ...this.peak },
    };
  }

  private take(): () => void {
    this.running += 1;
    this.admitted += 1;
    this.peak.running = Math.max(this.peak.running, this.running);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.grantNext();
    };
  }

  /** Gives freed slots to the line in order (a reload may have raised the limit). */
  private grantNext(): void {
    const limits = this.options.limits();
    while (this.running < limits.running && this.line.length > 0) this.line[0]?.grant();
  }

  private refusal(reason: 'full' | 'deadline', limits: GateLimits): SpillwayError {
    const { noun, name, plural = `${noun}s` } = this.options;
    const running = this.running;
    const waiting = this.line.length;
    const limit = limits.running + limits.waiting;
    const keys = this.options.keys === undefined ? '' : ` (${this.options.keys})`;
    const load = `${formatCount(running + waiting)} ${running + waiting === 1 ? noun : plural} running or waiting, limit ${formatCount(limit)}${keys}`;
    const message =
      reason === 'full'
        ? `The server is busy: ${load}; retry in a few seconds.`
        : `The call waited ${formatCount(limits.waitMs)} ms (server.queueWaitMs) without getting its turn: ${load}; retry in a few seconds.`;
    return new SpillwayError(this.options.code ?? 'BUSY', message, { queue: name, running, waiting, limit, reason });
  }
}
