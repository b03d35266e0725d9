import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../../errors.js';
import type { Host } from '../../host/host.js';
import type { ToolContext } from '../../host/tool.js';
import { availableParallelism } from 'node:os';
import { FilePool, type FileJobObservation, type RunOptions } from '../../files/pool/file-pool.js';
import type { DocumentBlock, FigureBlock } from '../../files/formats/document-spec.js';
import type { OutputTarget, ProgressMessage, WorkerKind } from '../../files/pool/worker-task.js';
import { formatBytes, formatCount } from '../../util/format.js';

/** What the file tools share: the real sandbox root and the worker pool (created on first use). */
export interface FileToolServices {
  sandboxRoot: string;
  pool(): FilePool;
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
  host.setHealthSource('workers', () => pool?.health() ?? { started: false });
  const writing = new Map<string, number>();
  const services: FileToolServices = {
    sandboxRoot: host.sandbox.root,
    ...(options.figures === undefined ? {} : { figures: options.figures }),
    pool() {
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
      const filename = task.output.kind === 'sandbox' ? task.output.filename : undefined;
      const key = `${context.sandbox.key}/${filename}`;
      writing.set(key, (writing.get(key) ?? 0) + 1);
      try {
        return await services.pool().run<R>(kind, task, { signal: context.signal, ...progressReports(kind, context) });
      } catch (error) {
        // A worker that failed by itself has already removed its file; one that was ended
        // (crash, timeout, cancellation) could not. Removing is safe either way.
        if (filename !== undefined && writing.get(key) === 1 && !isRefusal(error)) await removeTemporaryFiles(context.sandbox.folderPath('outputs'), filename);
        throw error;
      } finally {
        const left = (writing.get(key) ?? 1) - 1;
        if (left === 0) writing.delete(key);
        else writing.set(key, left);
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

/** Removes this process's temporary files for `filename` (".name.PID.RANDOM.tmp", see createPendingFile). */
async function removeTemporaryFiles(folder: string, filename: string): Promise<void> {
  const prefix = `.${filename}.${process.pid}.`;
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp')).map((name) => unlink(path.join(folder, name)).catch(() => undefined)),
  );
}
