import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Host } from '../../host/host.js';
import type { ToolContext } from '../../host/tool.js';
import { FilePool, type FileJobObservation } from '../../files/pool/file-pool.js';
import type { DocumentBlock, FigureBlock } from '../../files/formats/document-spec.js';
import type { OutputTarget, WorkerKind } from '../../files/pool/worker-task.js';

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
        return await services.pool().run<R>(kind, task, { signal: context.signal });
      } catch (error) {
        // A worker that failed by itself has already removed its file; one that was ended
        // (crash, timeout, cancellation) could not. Removing is safe either way.
        if (filename !== undefined && writing.get(key) === 1) await removeTemporaryFiles(context.sandbox.folderPath('outputs'), filename);
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

/** Removes this process's temporary files for `filename` (".name.PID.RANDOM.tmp", see createPendingFile). */
async function removeTemporaryFiles(folder: string, filename: string): Promise<void> {
  const prefix = `.${filename}.${process.pid}.`;
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp')).map((name) => unlink(path.join(folder, name)).catch(() => undefined)),
  );
}
