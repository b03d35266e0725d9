import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { BridgeRequest, RunMessage, RunOutcome, WorkerMessage } from './protocol.js';
import type { ScriptBridge } from './script-bridge.js';
import { limitError, type ScriptLimits } from './script-limits.js';
import { postSyncReply } from './sync-call.js';

const workerUrl = new URL('./script-worker.js', import.meta.url);
const mebibyte = 1024 * 1024;

/** What one run produced, whichever way it ended. */
export interface SlotRunResult {
  outcome: RunOutcome;
  console: string;
}

export interface SlotRunOptions {
  message: RunMessage;
  bridge: ScriptBridge;
  /** When the watchdog terminates the worker (epoch ms), past the interrupt deadline. */
  killAt: number;
  signal: AbortSignal;
  /** Arms the watchdog (`fire` at killAt) and returns its disarm; tests pass their own trigger. Default: a timer. */
  armWatchdog?: (fire: () => void, killAt: number) => () => void;
}

const timerWatchdog = (fire: () => void, killAt: number): (() => void) => {
  const timer = setTimeout(fire, Math.max(0, killAt - Date.now()));
  return () => clearTimeout(timer);
};

/** V8 heap for the worker: the guest's data passes through it as text, so a few times the guest's memory. */
export function workerHeapMb(limits: ScriptLimits): number {
  return Math.ceil((3 * limits.memoryBytes) / mebibyte) + 64;
}

/**
 * One worker thread that runs scripts, and the watchdog around each run: a
 * timer outside the runtime that terminates the thread when the interrupt
 * handler did not stop the script in time (a native call such as a huge
 * allocation does not check for interrupts).
 */
export class ScriptWorkerSlot {
  readonly heapMb: number;
  runs = 0;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private readonly ready: Promise<void>;
  private exited = false;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Ends the current run at once (when the worker is terminated from outside, e.g. the host closing). */
  private abortCurrent: ((error: SpillwayError) => void) | undefined;

  constructor(
    limits: ScriptLimits,
    private readonly logger: Logger,
  ) {
    this.heapMb = workerHeapMb(limits);
    const channel = new MessageChannel();
    const shared = new SharedArrayBuffer(4);
    this.signal = new Int32Array(shared);
    this.port = channel.port1;
    this.worker = new Worker(workerUrl, {
      workerData: { port: channel.port2, signal: shared },
      transferList: [channel.port2],
      // The worker's stdout must never reach ours: it can be the MCP stdio transport.
      stdout: true,
      stderr: true,
      env: {},
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    this.worker.stdout.on('data', (chunk: Buffer) => this.logger.debug({ output: chunk.toString('utf8').slice(0, 2000) }, 'script worker stdout'));
    this.worker.stderr.on('data', (chunk: Buffer) => this.logger.debug({ output: chunk.toString('utf8').slice(0, 2000) }, 'script worker stderr'));
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: WorkerMessage): void => {
        if (message.type !== 'ready') return;
        this.worker.off('message', onMessage);
        this.worker.off('error', reject);
        resolve();
      };
      this.worker.on('message', onMessage);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`the worker exited (code ${code}) before it was ready`)));
    });
    this.ready.catch(() => undefined);
    // A permanent listener: an error while idle must not become an uncaught 'error' event.
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'script worker error'));
    this.worker.once('exit', () => {
      this.exited = true;
      this.port.close();
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Waits until the worker has loaded QuickJS. */
  async started(): Promise<void> {
    try {
      await this.ready;
    } catch (error) {
      throw new SpillwayError('WORKER_FAILED', `The script worker failed to start: ${(error as Error).message}`);
    }
  }

  /** Runs one script; resolves with its outcome however it ended (never rejects). */
  run(options: SlotRunOptions): Promise<SlotRunResult> {
    const { message, bridge } = options;
    this.runs += 1;
    this.setIdle(false);
    let consoleText = '';
    return new Promise<SlotRunResult>((resolve) => {
      let settled = false;
      const finish = (outcome: RunOutcome): void => {
        if (settled) return;
        settled = true;
        this.abortCurrent = undefined;
        disarmWatchdog();
        options.signal.removeEventListener('abort', onAbort);
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
        this.worker.off('exit', onExit);
        this.port.off('message', onRequest);
        bridge.close();
        resolve({ outcome, console: consoleText });
      };
      const stop = (error: SpillwayError): void => {
        finish({ ok: false, error: error.toJSON(), retire: true });
        void this.terminate();
      };
      const onMessage = (reply: WorkerMessage): void => {
        if (reply.type === 'console' && reply.runId === message.runId) consoleText += reply.text;
        else if (reply.type === 'done' && reply.runId === message.runId) finish(reply.outcome);
      };
      const onRequest = (request: BridgeRequest): void => {
        void bridge.handle(request).then(({ reply, transfer }) => {
          if (!settled && !this.exited) postSyncReply(this.port, this.signal, reply, transfer);
        });
      };
      const onError = (error: Error & { code?: string }): void => {
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          stop(
            limitError(
              message.limits,
              'memoryBytes',
              'The script worker ran out of memory',
              'Keep less data in memory at once: read big files in pages with readRows(path, { offset, limit }).',
            ),
          );
        } else {
          stop(new SpillwayError('WORKER_FAILED', `The script worker failed: ${error.message}`));
        }
      };
      const onExit = (code: number): void => stop(new SpillwayError('WORKER_FAILED', `The script worker exited unexpectedly (code ${code}).`));
      const onAbort = (): void => stop(new SpillwayError('TOOL_FAILED', 'The call was cancelled; the script was stopped.'));
      const disarmWatchdog = (options.armWatchdog ?? timerWatchdog)(() => {
        this.logger.warn({ runId: message.runId }, 'script overran its deadline; watchdog terminated the worker');
        stop(
          limitError(
            message.limits,
            'timeoutMs',
            'The script ran out of time and was stopped by the watchdog (a long native operation, such as a huge allocation, did not yield)',
            'Do less work in one run, and build big strings and arrays step by step.',
          ),
        );
      }, options.killAt);

      this.abortCurrent = (error) => finish({ ok: false, error: error.toJSON(), retire: true });
      this.worker.on('message', onMessage);
      this.worker.once('error', onError);
      this.worker.once('exit', onExit);
      this.port.on('message', onRequest);
      options.signal.addEventListener('abort', onAbort, { once: true });
      if (this.exited) {
        stop(new SpillwayError('WORKER_FAILED', 'The script worker had already stopped.'));
        return;
      }
      if (options.signal.aborted) {
        onAbort();
        return;
      }
      this.worker.postMessage(message);
    });
  }

  /** Idle workers do not keep the process alive, and are retired after `idleMs`. */
  park(idleMs: number, onExpire: () => void): void {
    this.setIdle(true);
    this.idleTimer = setTimeout(onExpire, idleMs);
    this.idleTimer.unref();
  }

  async terminate(): Promise<void> {
    this.clearIdleTimer();
    this.abortCurrent?.(new SpillwayError('TOOL_FAILED', 'The host is shutting down; the script was stopped.'));
    if (this.exited) return;
    this.exited = true;
    // Hold the event loop until the thread is gone: the exit of an unref'd worker
    // (a parked one, or one still starting) may never be delivered, which would
    // leave this promise, and the host's close, pending forever.
    this.worker.ref();
    await this.worker.terminate().catch(() => undefined);
    this.port.close();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== undefined) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
  }

  private setIdle(idle: boolean): void {
    this.clearIdleTimer();
    if (idle) {
      this.worker.unref();
      this.port.unref();
    } else {
      this.worker.ref();
      this.port.ref();
    }
  }
}
