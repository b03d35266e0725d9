import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SpillwayError } from '../errors.js';
import type { ChartReply, ChartTask } from './chart-protocol.js';

/** Compiled worker modules sit in dist/workers/, two folders up from dist/src/charts/. */
const childModule = fileURLToPath(new URL('../../workers/chart.js', import.meta.url));

/** Loading Vega, Vega-Lite and resvg takes about a second; a child not ready in this long is not coming. */
const readyWithinMs = 60_000;

/** The end of the child's stderr kept to tell an out-of-memory death from another crash. */
const stderrTailChars = 4096;

/** What V8 (heap limit, invalid size) and Rust (resvg's allocator) print when an allocation fails. */
const outOfMemory = /heap out of memory|allocation failed|memory allocation of \d+ bytes failed|invalid size error|out of memory/i;

export interface TaskOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The child's heap cap, for the refusal when it runs out. */
  memoryBytes: number;
}

/**
 * One forked chart process (workers/chart.ts) with its heap capped by
 * --max-old-space-size. It runs one task at a time and may be reused; a task
 * past its deadline, cancelled, or whose child dies fails with a coded error,
 * and the child is not used again.
 */
export class ChartProcess {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  /** The child's RSS after its last answer. */
  lastRss = 0;
  private hasExited = false;
  private stderr = '';
  private stopping: string | undefined;

  constructor(readonly memoryBytes: number) {
    const heapMb = Math.max(16, Math.floor(memoryBytes / 1024 / 1024));
    this.process = fork(childModule, [], {
      // Never inherit --test or inspector flags; never write to the parent's stdout (the MCP stdio transport).
      execArgv: [`--max-old-space-size=${heapMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.process.stderr?.setEncoding('utf8');
    this.process.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-stderrTailChars);
    });
    // A failed kill or send is reported where it happens (run, ready); an 'error' event without a listener would end the host.
    this.process.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.process.once('exit', () => {
        this.hasExited = true;
        resolve();
      });
      // A process that never started has no exit to wait for.
      this.process.once('error', () => {
        if (this.process.pid === undefined) resolve();
      });
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new SpillwayError('CHART_FAILED', 'The chart process did not start; try again.')), readyWithinMs);
      timer.unref();
      this.process.once('message', (message: ChartReply) => {
        clearTimeout(timer);
        if (message.type === 'ready') resolve();
        else reject(new SpillwayError('CHART_FAILED', `The chart process started wrongly (${message.type}); try again.`));
      });
      this.process.once('exit', () => {
        clearTimeout(timer);
        reject(this.death(this.stopping, this.process.exitCode, this.process.signalCode, memoryBytes));
      });
      this.process.once('error', (error) => reject(new SpillwayError('CHART_FAILED', `Cannot start the chart process: ${error.message}`)));
    });
    this.ready.catch(() => undefined);
    this.idle();
  }

  get alive(): boolean {
    return !this.hasExited && this.stopping === undefined;
  }

  /** Waiting for work: the child must not keep the host alive. */
  idle(): void {
    this.process.unref();
    this.process.channel?.unref();
    (this.process.stderr as { unref?: () => void } | null)?.unref?.();
  }

  /** Ends the child (SIGKILL) and resolves once it is gone; a task it was running fails with `reason`. */
  async kill(reason: string): Promise<void> {
    this.stopping ??= reason;
    // Held until it is gone, so a close that awaits this does not end with the child still there.
    this.process.ref();
    if (!this.hasExited) this.process.kill('SIGKILL');
    await this.exited;
  }

  /** Runs one task; resolves with its result (the child's RSS after it is in lastRss). */
  run<R>(task: ChartTask, options: TaskOptions): Promise<R> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.process.off('message', onMessage);
        this.process.off('exit', onExit);
      };
      const fail = (error: SpillwayError, kill: boolean) => {
        if (settled) return;
        cleanup();
        if (kill) void this.kill(error.message);
        reject(error);
      };
      const onAbort = () => fail(new SpillwayError('CHART_FAILED', 'The call was cancelled; the chart was stopped.'), true);
      const onMessage = (message: ChartReply) => {
        if (settled || message.type === 'ready') return;
        cleanup();
        this.lastRss = message.rss;
        if (message.type === 'error') reject(SpillwayError.fromJSON(message.error));
        else resolve(message.result as R);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(this.death(this.stopping, code, signal, options.memoryBytes), false);
      if (options.signal?.aborted === true) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.process.on('message', onMessage);
      this.process.once('exit', onExit);
      // Running: the child keeps the host alive until it answers.
      this.process.ref();
      this.process.channel?.ref();
      // The deadline starts once the child has Vega loaded: loading is not the chart's time.
      this.ready.then(
        () => {
          if (settled) return;
          timer = setTimeout(() => fail(timedOut(options.timeoutMs), true), options.timeoutMs);
          const unsent = (error: Error | null) => {
            if (error !== null) fail(new SpillwayError('CHART_FAILED', `The chart could not be handed to its process: ${error.message}`), true);
          };
          try {
            this.process.send(task, unsent);
          } catch (error) {
            unsent(error as Error);
          }
        },
        (error: unknown) => fail(SpillwayError.is(error) ? error : new SpillwayError('CHART_FAILED', String(error)), true),
      );
    });
  }

  /** The coded error for a child that died: out of memory when it says so (or the kernel killed it), a crash otherwise. */
  private death(stopping: string | undefined, code: number | null, signal: NodeJS.Signals | null, memoryBytes: number): SpillwayError {
    if (stopping !== undefined) return new SpillwayError('CHART_FAILED', `The chart process was stopped: ${stopping}`, { signal });
    const how = signal ?? `code ${code}`;
    if (outOfMemory.test(this.stderr) || signal === 'SIGKILL') {
      const mb = Math.floor(memoryBytes / 1024 / 1024);
      return new SpillwayError(
        'CHART_TOO_LARGE',
        `The chart ran out of memory: its process may use charts.memoryBytes (${mb} MB), and it was stopped (${how}). Aggregate the rows first, bin or impute over fewer values, or draw a smaller chart.`,
        { limit: 'charts.memoryBytes', value: memoryBytes, signal },
      );
    }
    return new SpillwayError('CHART_FAILED', `The chart process stopped (${how}) without an answer; the next chart starts a fresh one.`, {
      exitCode: code,
      signal,
    });
  }
}

function timedOut(timeoutMs: number): SpillwayError {
  return new SpillwayError(
    'CHART_FAILED',
    `Rendering took longer than charts.timeoutMs (${timeoutMs} ms) and was stopped. Simplify the spec or aggregate the data first.`,
    { limit: 'charts.timeoutMs', value: timeoutMs },
  );
}
