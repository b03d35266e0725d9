import { SpillwayError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import type { ToolContext } from '../../host/tool.js';
import { availableParallelism } from 'node:os';
import { FilePool, type FileJobObservation, type RunOptions } from '../../files/pool/file-pool.js';
import type { FileRunner } from '../../files/pool/file-runner.js';
import { OutputTemps } from '../../files/pool/output-temps.js';
import type { DocumentBlock, FigureBlock } from '../../files/formats/document-spec.js';
import type { OutputTarget, ProgressMessage, WorkerKind } from '../../files/pool/worker-task.js';
import { formatBytes, formatCount } from '../../util/format.js';

/** What the file tools share: the real sandbox root and what builds files (the local worker pool, created on first use, or the fleet's job queue). */
export interface FileToolServices {
  sandboxRoot: string;
  pool(): FileRunner;
  /**
   * Runs a task that writes an output file. When the worker is ended mid-file (crash,
   * timeout, cancellation) its temporary file is removed, unless another task is writing a file
   * of the same name in the same conversation at that moment.
   */
  runToOutput<R>(kind: WorkerKind, task: { output: OutputTarget }, context: ToolContext): Promise<R>;
  /** Renders chart blocks and reads image blocks for build_document; absent, such blocks are refused. */
  figures?: FigureResolver;
}

/** Turns a document's chart or image block into a picture (registered by the analysis tools). */
export type FigureResolver = (block: Extract<DocumentBlock, { type: 'chart' | 'image' }>, context: ToolContext) => Promise<FigureBlock>;

export interface FileToolOptions {
  /** Entry modules that replace the built-in worker of a format (see FilePoolOptions.modules). */
  workerModules?: Partial<Record<WorkerKind, URL>>;
  figures?: FigureResolver;
  /**
   * Builds files somewhere else instead of on this host's threads (the fleet's
   * job queue, when Redis coordinates one); its owner closes it.
   */
  runner?: FileRunner;
}

/**
 * Services for one host: the pool is sized from host.config.workers when the
 * first file is built, reports in the health check, and closes with the host.
 */
export function fileToolServices(host: Host, options: FileToolOptions = {}): FileToolServices {
  let pool: FilePool | undefined;
  // The gate reads the running configuration, so a reload of the caps applies to the next export.
  const gate = host.queues.gate({
    name: 'exports',
    noun: 'export',
    keys: 'workers.poolSize, workers.maxQueue',
    limits: () => ({
      running: pool?.threads ?? threadsFor(host.config.workers.poolSize),
      waiting: host.config.workers.maxQueue,
      waitMs: host.config.server.queueWaitMs,
    }),
  });
  host.onClose(async () => {
    await pool?.close();
  });
  host.setHealthSource('workers', () => options.runner?.health() ?? pool?.health() ?? { started: false });
  const temps = new OutputTemps();
  const services: FileToolServices = {
    sandboxRoot: host.sandbox.root,
    ...(options.figures === undefined ? {} : { figures: options.figures }),
    pool() {
      if (options.runner !== undefined) return options.runner;
      if (pool === undefined) {
        const { poolSize, maxQueue, taskTimeoutMs } = host.config.workers;
        // Metrics count the pool's jobs from the host's file-job events.
        const observer = (event: FileJobObservation) => host.emit('file-job', event);
        pool = new FilePool({
          poolSize,
          maxQueue,
          taskTimeoutMs,
          logger: host.logger,
          observer,
          gate,
          ...(options.workerModules === undefined ? {} : { modules: options.workerModules }),
        });
      }
      return pool;
    },
    async runToOutput<R>(kind: WorkerKind, task: { output: OutputTarget }, context: ToolContext): Promise<R> {
      const ended = temps.track(task.output);
      try {
        const result = await services.pool().run<R>(kind, task, { signal: context.signal, ...progressReports(kind, context) });
        await ended(false);
        return result;
      } catch (error) {
        // A worker that failed by itself has already removed its file; one that was ended
        // (crash, timeout, cancellation) could not. Removing is safe either way.
        await ended(!isRefusal(error));
        throw error;
      }
    },
  };
  return services;
}

/** Refused by the admission gate: no worker ever started, so there is no file to remove. */
function isRefusal(error: unknown): boolean {
  return SpillwayError.is(error) && error.code === 'BUSY';
}

function threadsFor(poolSize: number): number {
  return poolSize > 0 ? poolSize : availableParallelism();
}

/**
 * The pool's events as MCP progress (notifications/progress when the client sent
 * a progressToken): a client that resets its timeout on progress keeps waiting
 * while the export waits for a thread and while it writes rows.
 */
function progressReports(kind: WorkerKind, context: ToolContext): Pick<RunOptions, 'onWaiting' | 'onStarted' | 'onProgress'> {
  let step = 0;
  const report = (message: string) => context.progress({ progress: ++step, message });
  return {
    onWaiting: (ahead) => report(`Waiting for a free ${kind} worker (${ahead} ahead).`),
    onStarted: () => report(`Building the ${kind} file.`),
    onProgress: (progress: ProgressMessage) =>
      report(
        `${progress.phase[0]?.toUpperCase()}${progress.phase.slice(1)}: ${formatCount(progress.rows)} rows, ${formatBytes(progress.bytesRead)} of ${formatBytes(progress.bytes)} read.`,
      ),
  };
}
