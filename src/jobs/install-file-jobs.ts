import type { Config } from '../config/schema.js';
import type { ChartRenderer } from '../charts/chart-renderer.js';
import type { FileRunner } from '../files/pool/file-runner.js';
import type { WorkerKind } from '../files/pool/worker-task.js';
import type { Host } from '../host/host.js';
import { ChartJobs } from './chart-jobs.js';
import { FileJobQueue } from './file-job-queue.js';
import { startFileJobWorker } from './file-job-worker.js';

type Redis = NonNullable<Config['coordination']['redis']>;

/**
 * Sends a host's file building through the fleet's job queue (coordination.redis
 * set): the file tools get the queue as their runner, the "exports" queue of
 * /healthz counts this replica's calls waiting for jobs, metrics count the jobs
 * from the host's file-job events, and, with coordination.jobs.onReplicas,
 * this host takes jobs on its own threads too. Charts go through the same
 * queue (returned as the analysis tools' renderer). Everything closes with the host.
 */
export async function installFileJobs(
  host: Host,
  redis: Redis,
  options: { keyPrefix: string; workerModules?: Partial<Record<WorkerKind, URL>> },
): Promise<{ runner: FileRunner; charts: ChartRenderer }> {
  // This replica's calls waiting for jobs, file and chart alike: workers.maxQueue with a job queued, as many more waiting to queue one.
  const callsWaiting = (name: string, noun: string) =>
    host.queues.gate({
      name,
      noun,
      keys: 'workers.maxQueue',
      limits: () => ({ running: host.config.workers.maxQueue, waiting: host.config.workers.maxQueue, waitMs: host.config.server.queueWaitMs }),
    });
  const gate = callsWaiting('exports', 'export');
  const queue = await FileJobQueue.open({
    redisUrl: redis.url,
    keyPrefix: options.keyPrefix,
    sandboxRoot: host.sandbox.root,
    gate,
    waitMs: () => host.config.server.queueWaitMs,
    runMs: () => host.config.workers.taskTimeoutMs + host.config.coordination.jobs.lockMs,
    logger: host.logger,
    observer: (event) => host.emit('file-job', event),
  });
  host.onClose(() => queue.close());
  const { jobs } = host.config.coordination;
  if (jobs.onReplicas) {
    const { poolSize, maxQueue, taskTimeoutMs } = host.config.workers;
    const worker = await startFileJobWorker({
      redisUrl: redis.url,
      keyPrefix: options.keyPrefix,
      sandboxRoot: host.sandbox.root,
      poolSize,
      maxQueue,
      taskTimeoutMs,
      lockMs: jobs.lockMs,
      retries: jobs.retries,
      chartMemoryBytes: host.config.charts.memoryBytes,
      logger: host.logger,
      ...(options.workerModules === undefined ? {} : { modules: options.workerModules }),
    }).catch(async (error: unknown) => {
      await queue.close();
      throw error;
    });
    // Closers run last-registered first: this worker's running jobs finish before the queue closes.
    host.onClose(() => worker.close());
  }
  return { runner: queue, charts: new ChartJobs(queue, callsWaiting('charts', 'chart')) };
}
