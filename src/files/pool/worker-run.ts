import { toSpillwayError } from '../../errors.js';
import type { ProgressMessage, WorkerReply } from './worker-task.js';

/**
 * Wraps a worker task: errors become plain {code, message, details} (classes
 * do not survive the thread boundary).
 */
export function workerTask<T extends { progressPort?: import('node:worker_threads').MessagePort; output?: unknown }, R>(
  run: (task: T, progress: (message: ProgressMessage) => void) => Promise<R>,
): (task: T) => Promise<WorkerReply<R>> {
  return async (task) => {
    // The first message says the task left the queue (the pool counts running and queued jobs from it).
    task.progressPort?.postMessage({ started: Date.now() });
    let lastPost = 0;
    const progress = (message: ProgressMessage) => {
      const now = Date.now();
      if (task.progressPort === undefined || now - lastPost < 100) return;
      lastPost = now;
      task.progressPort.postMessage(message);
    };
    try {
      return { ok: true, result: await run(task, progress) };
    } catch (error) {
      return { ok: false, error: toSpillwayError(error, 'WORKER_FAILED').toJSON() };
    } finally {
      task.progressPort?.close();
    }
  };
}
