import { toSpillwayError } from '../../errors.js';
import { asDiskError, ConversationSandbox, withoutHostPaths } from '../../sandbox/index.js';
import type { ProgressMessage, WorkerReply } from './worker-task.js';

/**
 * Wraps a worker task: errors become plain {code, message, details} (classes
 * do not survive the thread boundary). A file-system failure becomes a coded
 * disk fault (DISK_FULL, ...), and no message names a host folder: paths are
 * relative to the conversation.
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
      const base = conversationDir(task);
      const file = outputName(task);
      const failure = toSpillwayError(
        asDiskError(error, { ...(base === undefined ? {} : { base }), ...(file === undefined ? {} : { path: file }) }),
        'WORKER_FAILED',
      );
      return { ok: false, error: (base === undefined ? failure : withoutHostPaths(failure, base)).toJSON() };
    } finally {
      task.progressPort?.close();
    }
  };
}

/** The conversation folder a task writes in (or reads from), when it is a sandbox task. */
function conversationDir(task: { output?: unknown; sources?: unknown }): string | undefined {
  const target = (task.output ?? task.sources) as { kind?: unknown; root?: unknown; principal?: unknown; conversationId?: unknown } | undefined;
  if (target?.kind !== 'sandbox' || typeof target.root !== 'string' || typeof target.conversationId !== 'string' || typeof target.principal !== 'string') {
    return undefined;
  }
  try {
    return new ConversationSandbox(target.root, target.conversationId, target.principal).dir;
  } catch {
    return undefined;
  }
}

/** The output a sandbox task writes, as the model names it. */
function outputName(task: { output?: unknown }): string | undefined {
  const target = task.output as { kind?: unknown; filename?: unknown } | undefined;
  return target?.kind === 'sandbox' && typeof target.filename === 'string' ? `outputs/${target.filename}` : undefined;
}
