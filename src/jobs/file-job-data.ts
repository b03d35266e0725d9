import path from 'node:path';
import { SpillwayError, type SerializedError } from '../errors.js';
import type { WorkerKind } from '../files/pool/worker-task.js';
import { isJsonObject } from '../util/is-json-object.js';

/** What a job carries: the worker module to run and its task (plain JSON, no ports). */
export interface FileJobData {
  kind: WorkerKind;
  task: Record<string, unknown>;
}

/**
 * What a worker answers. Errors travel as data (code, message, details), like
 * a thread's reply: a job "completes" with a refusal, it is never retried for
 * one. A result's `path` travels relative to the sandbox root, since replicas
 * and workers may mount the shared volume at different places.
 */
export type FileJobReply = { ok: true; result: unknown; rootRelativePath?: string } | { ok: false; error: SerializedError; cancelled?: boolean };

const kinds: readonly WorkerKind[] = ['csv', 'xlsx', 'docx', 'pptx', 'markdown'];

/**
 * Reads a job's data on the worker node and puts its sandbox locations under
 * this node's sandbox root. Only sandbox locations are accepted: a job that
 * names a plain path (the CLI's local export) is refused, so nothing in the
 * queue can make a worker read or write outside the sandbox.
 */
export function taskOnThisNode(data: unknown, sandboxRoot: string): FileJobData {
  if (!isJsonObject(data) || typeof data.kind !== 'string' || !(kinds as readonly string[]).includes(data.kind) || !isJsonObject(data.task)) {
    throw new SpillwayError(
      'WORKER_FAILED',
      'A file job arrived without a known kind and task; it was dropped. Check that replicas and workers run the same spillway version.',
    );
  }
  const task: Record<string, unknown> = { ...data.task };
  const locate = (value: unknown, field: string): unknown => {
    if (value === undefined) return undefined;
    if (!isJsonObject(value) || value.kind !== 'sandbox') {
      throw new SpillwayError('WORKER_FAILED', `A file job's ${field} is not a sandbox location; workers only read and write inside the sandbox.`, { field });
    }
    return { ...value, root: sandboxRoot };
  };
  for (const field of ['source', 'output', 'sources'] as const) {
    const located = locate(task[field], field);
    if (located !== undefined) task[field] = located;
  }
  if (Array.isArray(task.moreSheets)) {
    task.moreSheets = task.moreSheets.map((sheet: unknown, index) =>
      isJsonObject(sheet) ? { ...sheet, source: locate(sheet.source, `moreSheets[${index}].source`) } : sheet,
    );
  }
  delete task.progressPort;
  return { kind: data.kind as WorkerKind, task };
}

/** The worker's side: a result whose path lies under the root travels as a root-relative path. */
export function replyWithResult(result: unknown, sandboxRoot: string): FileJobReply {
  if (isJsonObject(result) && typeof result.path === 'string' && path.isAbsolute(result.path)) {
    const relative = path.relative(sandboxRoot, result.path);
    if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative))
      return { ok: true, result, rootRelativePath: relative.split(path.sep).join('/') };
  }
  return { ok: true, result };
}

/** The replica's side: the result, its path under this replica's sandbox root; a refusal rebuilt as a SpillwayError. */
export function resultOf<R>(reply: unknown, sandboxRoot: string): R {
  if (!isJsonObject(reply) || typeof reply.ok !== 'boolean') {
    throw new SpillwayError('WORKER_FAILED', 'A file job finished without a readable answer; no file is reported. The call can be retried.', {
      retryable: true,
    });
  }
  if (!reply.ok) throw SpillwayError.fromJSON(reply.error as SerializedError);
  const result = reply.result;
  if (typeof reply.rootRelativePath === 'string' && isJsonObject(result)) {
    const parts = reply.rootRelativePath.split('/');
    if (parts.some((part) => part === '' || part === '.' || part === '..')) {
      throw new SpillwayError('WORKER_FAILED', 'A file job reported a path outside the sandbox; it is not trusted.', { retryable: false });
    }
    return { ...result, path: path.join(sandboxRoot, ...parts) } as R;
  }
  return result as R;
}
