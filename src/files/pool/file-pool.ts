import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { SpillwayError } from '../../errors.js';
import type { Logger } from '../../log/logger.js';
import { AdmissionGate, poolLimits } from '../../util/admission-gate.js';
import { deadlineSignal } from '../../util/deadline-signal.js';
import { formatCount } from '../../util/format.js';
import { workerModules } from './worker-modules.js';
import type { JobKind, ProgressMessage, WorkerKind, WorkerReply } from './worker-task.js';

export interface FilePoolOptions {
  /** Threads; 0 means one per core. */
  poolSize: number;
  /** Tasks waiting for a thread before new ones are refused (BUSY). */
  maxQueue: number;
  /** Longest wait for a thread; a task still waiting is refused (BUSY). Default 30 s. */
  queueWaitMs?: number;
  /**
   * The admission gate tasks pass before they reach piscina (a host shares its
   * own, shown in /healthz); absent, the pool keeps one sized by poolSize and maxQueue.
   */
  gate?: AdmissionGate;
  /** A task running longer is stopped (its thread is ended). */
  taskTimeoutMs: number;
  logger?: Logger;
  /** Replaces the entry module of a format (an instrumented or custom writer); the rest keep workerModules. */
  modules?: Partial<Record<WorkerKind, URL>>;
  /** Told when a task is queued, starts on a thread and finishes (metrics count jobs from it). */
  observer?: (event: FileJobObservation) => void;
}

/** A task's life on the pool, as an observer sees it. */
export type FileJobObservation =
  | { phase: 'queued'; kind: JobKind }
  | { phase: 'started'; kind: JobKind; waitMs: number }
  | { phase: 'finished'; kind: JobKind; outcome: 'ok' | 'failed'; started: boolean; errorCode?: string; runMs?: number; totalMs: number };

export interface RunOptions {
  signal?: AbortSignal;
  /** Called when the task has to wait for a thread, with how many are ahead of it. */
  onWaiting?: (ahead: number) => void;
  /** Called when the task is admitted to a thread. */
  onStarted?: () => void;
  onProgress?: (progress: ProgressMessage) => void;
}

/**
 * The worker threads that build files. Created on the first task, so a host
 * that never exports starts no threads. A task that fails, throws or ends its
 * thread fails that one call; piscina replaces the thread and the pool keeps
 * serving.
 */
export class FilePool {
  private pool: Piscina | undefined;
  private closed = false;
  /**
   * Admissions are counted here, not left to piscina: it keeps tasks that carry
   * an abort signal (all of ours: every task has a deadline) in a side queue its
   * maxQueue never counts, so its limit alone refuses nothing.
   */
  readonly gate: AdmissionGate;

  constructor(private readonly options: FilePoolOptions) {
    this.gate =
      options.gate ??
      new AdmissionGate({
        name: 'exports',
        noun: 'export',
        keys: 'workers.poolSize, workers.maxQueue',
        limits: () => poolLimits(this.threads, options),
      });
  }

  get threads(): number {
    return this.options.poolSize > 0 ? this.options.poolSize : availableParallelism();
  }

  /** Runs one task on the worker module for `kind`; resolves with its result or rejects with a SpillwayError. */
  async run<R>(kind: WorkerKind, task: object, options: RunOptions = {}): Promise<R> {
    if (this.closed) throw new SpillwayError('WORKER_FAILED', 'The file-building workers are shut down (the host is closing).');
    const release = await this.gate.admit({
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
    });
    try {
      // Admitted means a thread is free for it (the gate lets in no more than the threads).
      options.onStarted?.();
      return await this.runAdmitted<R>(kind, task, options);
    } finally {
      release();
    }
  }

  /** piscina is loaded with the first file task: a `spillway call` that builds no file never loads it (~12 ms). */
  private async startedPool(): Promise<Piscina> {
    if (this.pool !== undefined) return this.pool;
    const { Piscina } = await import('piscina');
    if (this.closed) throw new SpillwayError('WORKER_FAILED', 'The file-building workers are shut down (the host is closing).');
    return (this.pool ??= new Piscina({
      maxThreads: this.threads,
      minThreads: 0,
      idleTimeout: 30_000,
      maxQueue: this.options.maxQueue,
    }));
  }

  private async runAdmitted<R>(kind: WorkerKind, task: object, options: RunOptions): Promise<R> {
    if (this.closed) throw new SpillwayError('WORKER_FAILED', 'The file-building workers are shut down (the host is closing).');
    const pool = await this.startedPool();
    const deadline = deadlineSignal(options.signal, this.options.taskTimeoutMs);
    const signal = deadline.signal;
    let channel: MessageChannel | undefined;
    let payload: object = task;
    const observer = this.options.observer;
    const started = performance.now();
    const queuedAt = Date.now();
    let runStartedAt: number | undefined;
    let done = false;
    if (options.onProgress !== undefined || observer !== undefined) {
      channel = new MessageChannel();
      channel.port1.on('message', (message: ProgressMessage | { started: number }) => {
        if ('started' in message) {
          if (done) return;
          runStartedAt = message.started;
          observer?.({ phase: 'started', kind, waitMs: Math.max(0, message.started - queuedAt) });
        } else options.onProgress?.(message);
      });
      payload = { ...task, progressPort: channel.port2 };
    }
    observer?.({ phase: 'queued', kind });
    const finish = (outcome: 'ok' | 'failed', errorCode?: string) => {
      done = true;
      if (observer === undefined) return;
      const end = Date.now();
      observer({
        phase: 'finished',
        kind,
        outcome,
        started: runStartedAt !== undefined,
        ...(errorCode === undefined ? {} : { errorCode }),
        ...(runStartedAt === undefined ? {} : { runMs: Math.max(0, end - runStartedAt) }),
        totalMs: performance.now() - started,
      });
    };
    try {
      const reply = (await pool.run(payload, {
        filename: (this.options.modules?.[kind] ?? workerModules[kind]).href,
        signal,
        ...(channel === undefined ? {} : { transferList: [channel.port2] }),
      })) as WorkerReply<R>;
      if (!reply.ok) throw SpillwayError.fromJSON(reply.error);
      this.options.logger?.debug({ worker: kind, ms: Math.round(performance.now() - started) }, 'worker task done');
      finish('ok');
      return reply.result;
    } catch (error) {
      const failure = SpillwayError.is(error) ? error : this.describeFailure(kind, error, deadline.timedOut(), options.signal?.aborted === true);
      finish('failed', failure.code);
      throw failure;
    } finally {
      deadline.done();
      channel?.port1.close();
    }
  }

  /** Pool facts for the health report. */
  health(): Record<string, unknown> {
    return {
      started: this.pool !== undefined,
      maxThreads: this.threads,
      threads: this.pool?.threads.length ?? 0,
      queued: this.pool?.queueSize ?? 0,
      admission: this.gate.stats(),
      completed: this.pool?.completed ?? 0,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close({ force: true });
  }

  private describeFailure(kind: WorkerKind, error: unknown, timedOut: boolean, cancelled: boolean): SpillwayError {
    const message = error instanceof Error ? error.message : String(error);
    if (timedOut) {
      return new SpillwayError(
        'TOOL_TIMEOUT',
        `Building the ${kind} file took longer than ${formatCount(this.options.taskTimeoutMs)} ms (workers.taskTimeoutMs) and was stopped; no file was written. Export fewer rows (range) or columns, or raise the limit.`,
        { worker: kind, timeoutMs: this.options.taskTimeoutMs },
      );
    }
    if (cancelled) return new SpillwayError('TOOL_FAILED', `The ${kind} export was cancelled by the caller; no file was written.`, { worker: kind });
    if (/queue is at limit/i.test(message)) {
      return new SpillwayError(
        'WORKER_FAILED',
        `The file-building workers are busy (${formatCount(this.options.maxQueue)} tasks already waiting); try again in a moment.`,
        { worker: kind, maxQueue: this.options.maxQueue },
      );
    }
    this.options.logger?.warn({ worker: kind, err: error }, 'worker failed');
    return new SpillwayError('WORKER_FAILED', `The ${kind} worker failed while building the file (${message}); no file was written. The call can be retried.`, {
      worker: kind,
      reason: message,
    });
  }
}
