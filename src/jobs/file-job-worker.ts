import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { SpillwayError, toSpillwayError } from '../errors.js';
import { FilePool, type FileJobObservation } from '../files/pool/file-pool.js';
import { OutputTemps } from '../files/pool/output-temps.js';
import type { JobKind, OutputTarget, WorkerKind } from '../files/pool/worker-task.js';
import { ChartPool } from '../charts/chart-pool.js';
import type { ChartRequest } from '../charts/render-chart.js';
import type { SvgRequest } from '../charts/rasterize-svg.js';
import type { Logger } from '../log/logger.js';
import { replyWithResult, taskOnThisNode, type FileJobReply } from './file-job-data.js';
import { bullPrefix, cancelChannel, cancelledKey, fileJobQueueName } from './job-names.js';
import { redisTimeMs } from '../coordination/redis-time.js';
import { JobConnections, settleWithin, subscribeWhenReady, whenReady } from './job-redis.js';

export interface FileJobWorkerOptions {
  redisUrl: string;
  keyPrefix: string;
  /** This node's sandbox root (the shared volume as mounted here). */
  sandboxRoot: string;
  /** workers.poolSize (0 = one per core), workers.maxQueue, workers.taskTimeoutMs. */
  poolSize: number;
  maxQueue: number;
  taskTimeoutMs: number;
  /** coordination.jobs.lockMs and retries. */
  lockMs: number;
  retries: number;
  logger: Logger;
  /** Replaces the entry module of a format (fault-injection tests), as for the local pool. */
  modules?: Partial<Record<WorkerKind, URL>>;
  observer?: (event: FileJobObservation) => void;
  /** charts.memoryBytes: the heap cap of this node's chart process (default: ChartPool's). */
  chartMemoryBytes?: number;
}

export interface FileJobWorker {
  /** Threads, and so jobs taken at once. */
  readonly threads: number;
  /** Stops taking jobs and waits for the running ones to finish (SIGTERM). */
  close(): Promise<void>;
}

/**
 * Takes file-building jobs from the fleet's queue and builds them on this
 * node's worker threads (the same worker modules as a single process). Takes
 * as many jobs at once as it has threads. It holds a job by a lock it renews
 * while it builds; a worker that dies stops renewing, and after
 * coordination.jobs.lockMs another worker takes the job again (up to
 * coordination.jobs.retries times); the file is published once all the same
 * (publish-once.ts). A cancelled job is stopped through a pub/sub message and
 * its temporary file removed.
 */
export async function startFileJobWorker(options: FileJobWorkerOptions): Promise<FileJobWorker> {
  const logger = options.logger.child({ component: 'file-job-worker' });
  const pool = new FilePool({
    poolSize: options.poolSize,
    maxQueue: options.maxQueue,
    taskTimeoutMs: options.taskTimeoutMs,
    logger,
    ...(options.modules === undefined ? {} : { modules: options.modules }),
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  });
  const connections = new JobConnections(options.redisUrl, logger);
  const connection = connections.open('blocking');
  const subscriber = connections.open('blocking');
  const temps = new OutputTemps();

  // Charts render on one thread of their own, as on a single host (rendering is CPU-bound and brief).
  let charts: ChartPool | undefined;
  const renderOnThisNode = async (kind: 'chart' | 'raster', task: Record<string, unknown>, signal?: AbortSignal): Promise<FileJobReply> => {
    const { chartMemoryBytes } = options;
    charts ??= new ChartPool({ threads: 1, maxQueue: 64, ...(chartMemoryBytes === undefined ? {} : { memoryBytes: () => chartMemoryBytes }) });
    const timeoutMs = typeof task.timeoutMs === 'number' ? task.timeoutMs : 30_000;
    const renderOptions = { timeoutMs, ...(signal === undefined ? {} : { signal }) };
    try {
      const result =
        kind === 'chart'
          ? await charts.render(task.request as unknown as ChartRequest, renderOptions)
          : await charts.rasterize(task.request as unknown as SvgRequest, renderOptions);
      return replyWithResult(result, options.sandboxRoot);
    } catch (error) {
      if (signal?.aborted === true) return cancelledReply();
      return { ok: false, error: toSpillwayError(error, 'CHART_FAILED').toJSON() };
    }
  };

  /** Jobs this worker is running now: a close waits for them, and only when there are some. */
  let running = 0;
  const processor = async (job: Job, token?: string, signal?: AbortSignal): Promise<FileJobReply> => {
    running += 1;
    try {
      return await processJob(job, token, signal);
    } finally {
      running -= 1;
    }
  };
  const processJob = async (job: Job, _token?: string, signal?: AbortSignal): Promise<FileJobReply> => {
    // One round trip: was the job cancelled, and what time is it on Redis (the fleet's one clock).
    const [cancelled, redisNowMs] = await Promise.all([connection.exists(cancelledKey(options.keyPrefix, job.id ?? '')), redisTimeMs(connection)]);
    if (cancelled === 1) return cancelledReply();
    let kind: JobKind;
    let task: Record<string, unknown>;
    let takeByMs: number | undefined;
    try {
      ({ kind, task, takeByMs } = taskOnThisNode(job.data, options.sandboxRoot));
    } catch (error) {
      return { ok: false, error: toSpillwayError(error, 'WORKER_FAILED').toJSON() };
    }
    if (takeByMs !== undefined && redisNowMs > takeByMs) return lateReply(kind);
    if (kind === 'chart' || kind === 'raster') return await renderOnThisNode(kind, task, signal);
    const ended = temps.track(task.output as OutputTarget | undefined);
    try {
      const result = await pool.run(kind as WorkerKind, task, {
        ...(signal === undefined ? {} : { signal }),
        onProgress: (progress) => void job.updateProgress(progress).catch(() => undefined),
      });
      await ended(false);
      return replyWithResult(result, options.sandboxRoot);
    } catch (error) {
      await ended(true);
      if (signal?.aborted === true) return cancelledReply();
      return { ok: false, error: toSpillwayError(error, 'WORKER_FAILED').toJSON() };
    }
  };

  const worker = new Worker(fileJobQueueName, processor, {
    connection,
    prefix: bullPrefix(options.keyPrefix),
    concurrency: pool.threads,
    lockDuration: options.lockMs,
    stalledInterval: options.lockMs,
    maxStalledCount: options.retries,
    autorun: false,
  });
  // Connection errors are logged by the connections (once per change); BullMQ would print them all.
  worker.on('error', (error) => {
    if (!/ECONNREFUSED|ECONNRESET|Connection is closed/i.test(error.message)) logger.warn({ err: error }, 'file jobs: worker error');
  });
  worker.on('stalled', (jobId) => logger.warn({ jobId }, 'file jobs: a job lost its worker; it is taken again'));
  // A cancelled job's record goes once its run has ended (a running job cannot be removed).
  worker.on('completed', (job, reply: FileJobReply) => {
    if (!reply.ok && reply.cancelled === true) void removeFinished(job);
  });

  try {
    await whenReady(connection, 5_000);
    await subscribeWhenReady(subscriber, cancelChannel(options.keyPrefix), 5_000);
  } catch (error) {
    await closeAll(
      worker,
      pool,
      connection,
      connections,
      () => 0,
      () => charts,
    );
    throw new SpillwayError(
      'COORDINATION_UNAVAILABLE',
      `coordination.redis.url: the file-job worker cannot reach Redis (${error instanceof Error ? error.message : String(error)}). Start Redis or correct the URL.`,
      { setting: 'coordination.redis.url', retryable: true },
    );
  }
  subscriber.on('message', (_channel: string, jobId: string) => {
    if (worker.cancelJob(jobId, 'cancelled by the caller')) logger.info({ jobId }, 'file jobs: stopped a cancelled job');
  });
  void worker.run().catch((error: unknown) => logger.error({ err: error }, 'file jobs: the worker stopped'));
  await worker.waitUntilReady();

  let closing: Promise<void> | undefined;
  return {
    threads: pool.threads,
    close: () =>
      (closing ??= closeAll(
        worker,
        pool,
        connection,
        connections,
        () => (running > 0 ? options.taskTimeoutMs : 0),
        () => charts,
      )),
  };
}

/** A job taken after its call stopped waiting: dropped (and its record removed), nothing built. */
function lateReply(kind: JobKind): FileJobReply {
  return {
    ok: false,
    cancelled: true,
    error: new SpillwayError(
      'BUSY',
      `No worker took the ${kind} job before its call stopped waiting (server.queueWaitMs); nothing was written. Try again in a moment.`,
      {
        worker: kind,
        retryable: true,
      },
    ).toJSON(),
  };
}

function cancelledReply(): FileJobReply {
  return {
    ok: false,
    cancelled: true,
    error: new SpillwayError('TOOL_FAILED', 'The export was cancelled by the caller; no file was written.').toJSON(),
  };
}

async function closeAll(
  worker: Worker,
  pool: FilePool,
  connection: Redis,
  connections: JobConnections,
  runningMs: () => number,
  charts: () => ChartPool | undefined,
): Promise<void> {
  // Running jobs finish first (a graceful close waits for them), unless Redis is gone: then
  // they could not be reported anyway, and the jobs go back to the queue once their lock runs out.
  // With none running, the close is forced at once: BullMQ's graceful close of an idle worker
  // now and then waits out its stalled-job interval (lockMs) before it returns.
  const waitMs = runningMs();
  if (connection.status === 'ready' && waitMs > 0) await settleWithin(worker.close(), waitMs);
  await settleWithin(worker.close(true), 2_000);
  await pool.close();
  await charts()?.close();
  connections.stop();
}

/**
 * Removes a finished job's record. BullMQ refuses to remove a job it still
 * holds locked, which it may for an instant after 'completed' under load; a
 * few tries a while apart (at most ~1.5 s in all), then the record is left to
 * removeOnComplete.
 */
async function removeFinished(job: Job): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      await job.remove();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}
