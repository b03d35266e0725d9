import { SpillwayError, isSerializedError, toSpillwayError } from '../../errors.js';
import { asDiskError, ConversationSandbox, withoutHostPaths } from '../../sandbox/index.js';
import type { ProgressMessage, WorkerReply } from './worker-task.js';

/** What a worker builds and with which library: named in the error when that library throws. */
export interface WorkerWriter {
  format: string;
  library?: string;
}

/** A library's message in an error: its first line, at most this many characters (its stack stays in the worker). */
const reasonChars = 500;

/**
 * Wraps a worker task: errors become plain {code, message, details} (classes
 * do not survive the thread boundary). A file-system failure becomes a coded
 * disk fault (DISK_FULL, ...); anything else the writer or its library throws
 * (exceljs past a limit, a renderer's internal error) becomes EXPORT_FAILED
 * with the library's message in details.reason, never the raw text alone. No
 * message names a host folder: paths are relative to the conversation.
 */
export function workerTask<T extends { progressPort?: import('node:worker_threads').MessagePort; output?: unknown }, R>(
  run: (task: T, progress: (message: ProgressMessage) => void) => Promise<R>,
  writer?: WorkerWriter,
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
      const coded = asDiskError(error, { ...(base === undefined ? {} : { base }), ...(file === undefined ? {} : { path: file }) });
      const failure = SpillwayError.is(coded) || isSerializedError(coded) ? toSpillwayError(coded) : writerFailure(coded, writer);
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

/** An error no code foresaw, thrown while building the file: the same call would throw it again. */
function writerFailure(error: unknown, writer: WorkerWriter | undefined): SpillwayError {
  const text = error instanceof Error ? error.message : String(error);
  const reason = (text.split('\n', 1)[0] ?? '').slice(0, reasonChars) || (error instanceof Error ? error.name : 'no message');
  const format = writer?.format ?? 'output';
  const by = writer?.library === undefined ? '' : ` (${writer.library})`;
  return new SpillwayError(
    'EXPORT_FAILED',
    `Building the ${format.toUpperCase()} file failed: its writer${by} reported "${reason}". No file was written, and the same call fails the same way: select fewer columns (columns) or rows (range), or choose another format.`,
    { format, ...(writer?.library === undefined ? {} : { library: writer.library }), reason },
    { cause: error },
  );
}
