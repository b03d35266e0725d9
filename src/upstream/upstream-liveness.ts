import type { UpstreamTimers } from './upstream-timers.js';

export interface LivenessSettings {
  /** Idle time before a ping; 0: no idle pings (a ping still follows a call timeout). */
  pingIntervalMs: number;
  pingTimeoutMs: number;
  /** Unanswered pings, or timed-out calls, in a row that make the upstream dead. */
  maxFailures: number;
}

export interface LivenessOptions {
  settings: LivenessSettings;
  timers: UpstreamTimers;
  /** Sends one MCP ping; rejects when it fails. `signal` aborts it when its deadline passes. */
  ping(signal: AbortSignal): Promise<void>;
  /** The upstream failed `maxFailures` checks in a row: restart or reconnect it. */
  onDead(reason: string): void;
}

/**
 * Notices a frozen upstream: a connection idle for `pingIntervalMs` gets an
 * MCP ping, and so does one whose call just timed out. A server that leaves
 * `maxFailures` pings unanswered in a row, or lets that many calls in a row
 * time out, is declared dead. Any answer (a result, an error from the
 * server, a pong) clears both counts.
 */
export class UpstreamLiveness {
  private readonly settings: LivenessSettings;
  private readonly timers: UpstreamTimers;
  private readonly sendPing: (signal: AbortSignal) => Promise<void>;
  private readonly onDead: (reason: string) => void;
  private cancelIdle: (() => void) | undefined;
  private inFlight = 0;
  private pinging = false;
  private stopped = false;
  private failedPings = 0;
  private timedOutCalls = 0;

  constructor(options: LivenessOptions) {
    this.settings = options.settings;
    this.timers = options.timers;
    this.sendPing = options.ping;
    this.onDead = options.onDead;
    this.armIdlePing();
  }

  /** Stops the idle timer; later outcomes are ignored (this connection is over). */
  stop(): void {
    this.stopped = true;
    this.cancelIdle?.();
    this.cancelIdle = undefined;
  }

  callStarted(): void {
    this.inFlight += 1;
    this.cancelIdle?.();
    this.cancelIdle = undefined;
  }

  /** The server answered a call (a result or an error of its own): it is alive. */
  callAnswered(): void {
    this.inFlight -= 1;
    this.failedPings = 0;
    this.timedOutCalls = 0;
    this.armIdlePing();
  }

  /** A call ended without an answer from the server (cancelled by the client, connection lost). */
  callEnded(): void {
    this.inFlight -= 1;
    this.armIdlePing();
  }

  /** A call timed out: count it, and ping at once to learn whether the server or only that tool is stuck. */
  callTimedOut(): void {
    this.inFlight -= 1;
    if (this.stopped) return;
    this.timedOutCalls += 1;
    if (this.timedOutCalls >= this.settings.maxFailures) {
      this.die(`${this.timedOutCalls} calls in a row timed out`);
      return;
    }
    void this.ping();
  }

  private armIdlePing(): void {
    this.cancelIdle?.();
    this.cancelIdle = undefined;
    if (this.stopped || this.inFlight > 0 || this.pinging || this.settings.pingIntervalMs === 0) return;
    this.cancelIdle = this.timers.schedule('ping', this.settings.pingIntervalMs, () => {
      this.cancelIdle = undefined;
      void this.ping();
    });
  }

  private async ping(): Promise<void> {
    if (this.stopped || this.pinging) return;
    this.pinging = true;
    this.cancelIdle?.();
    this.cancelIdle = undefined;
    const controller = new AbortController();
    const timeoutMs = this.settings.pingTimeoutMs;
    const missed = `no answer to a ping within ${timeoutMs} ms (upstream.pingTimeoutMs)`;
    const cancelDeadline = this.timers.schedule('ping-timeout', timeoutMs, () => controller.abort(new Error(missed)));
    let failure: string | undefined;
    try {
      await this.sendPing(controller.signal);
    } catch (error) {
      failure = controller.signal.aborted ? missed : error instanceof Error ? error.message : String(error);
    } finally {
      cancelDeadline();
      this.pinging = false;
    }
    if (this.stopped) return;
    if (failure === undefined) {
      this.failedPings = 0;
    } else {
      this.failedPings += 1;
      if (this.failedPings >= this.settings.maxFailures) {
        this.die(`it did not answer ${this.failedPings} pings in a row (last: ${failure})`);
        return;
      }
    }
    this.armIdlePing();
  }

  private die(reason: string): void {
    this.stop();
    this.onDead(reason);
  }
}
