import type { RunOptions } from './file-pool.js';
import type { WorkerKind } from './worker-task.js';

/**
 * What builds files for the file tools: the local worker threads (FilePool),
 * or, when Redis coordinates a fleet, a queue whose jobs worker nodes take
 * (src/jobs/file-job-queue.ts). Same task in, same result or SpillwayError out.
 */
export interface FileRunner {
  run<R>(kind: WorkerKind, task: object, options?: RunOptions): Promise<R>;
  /** Facts for /healthz. */
  health(): Record<string, unknown>;
  close(): Promise<void>;
}
