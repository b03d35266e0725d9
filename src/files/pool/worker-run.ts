import { toSpillwayError } from '../../errors.js';
import type { ProgressMessage, WorkerReply } from './worker-task.js';

/**
 * Wraps a worker task: errors become plain {code, message, details} (classes
 * do not survive the thread boundary). A test-only fault hook lets tests crash
 * a worker: it is read from the environment, never from a task.
 */
export function workerTask<T extends { progressPort?: import('node:worker_threads').MessagePort; output?: unknown }, R>(
  run: (task: T, progress: (message: ProgressMessage) => void) => Promise<R>,
): (task: T) => Promise<WorkerReply<R>> {
  return async (task) => {
    let lastPost = 0;
    const progress = (message: ProgressMessage) => {
      const now = Date.now();
      if (task.progressPort === undefined || now - lastPost < 100) return;
      lastPost = now;
      task.progressPort.postMessage(message);
    };
    try {
      testFault(task.output);
      return { ok: true, result: await run(task, progress) };
    } catch (error) {
      return { ok: false, error: toSpillwayError(error, 'WORKER_FAILED').toJSON() };
    } finally {
      task.progressPort?.close();
    }
  };
}

/**
 * SPILLWAY_TEST_WORKER_FAULT="exit:NAME" ends the worker thread with
 * process.exit when the output file is named NAME ("throw:NAME" throws a plain
 * Error outside the error wrapper's reach). Only tests set it.
 */
function testFault(output: unknown): void {
  const spec = process.env.SPILLWAY_TEST_WORKER_FAULT;
  if (spec === undefined || typeof output !== 'object' || output === null) return;
  const filename = (output as { filename?: unknown }).filename;
  for (const entry of spec.split(',')) {
    const [kind, name] = entry.split(':');
    if (name !== filename) continue;
    if (kind === 'exit') process.exit(3);
    if (kind === 'throw')
      setImmediate(() => {
        throw new Error('test fault: uncaught error in the worker');
      });
  }
}
