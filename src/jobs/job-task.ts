import { lstat } from 'node:fs/promises';
import type { ProgressMessage } from '../files/pool/worker-task.js';
import { isJsonObject } from '../util/is-json-object.js';
import { resultOf } from './file-job-data.js';

// What a replica puts into a fleet job and reads out of its answer.

/** The task with its output stamped with the job id (exactly-once publishing). */
export function withJobId(task: object, jobId: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...(task as Record<string, unknown>) };
  if (isJsonObject(copy.output) && copy.output.kind === 'sandbox') copy.output = { ...copy.output, jobId };
  return copy;
}

export function isProgress(value: unknown): value is ProgressMessage {
  return isJsonObject(value) && typeof value.phase === 'string' && typeof value.rows === 'number';
}

/** Whether a completed job's file is still where its answer says (a client may have removed it since). */
export async function fileStillThere(reply: unknown, sandboxRoot: string): Promise<boolean> {
  // Only a path under the sandbox root (as every output job's answer has) names a file on this node.
  if (!isJsonObject(reply) || typeof reply.rootRelativePath !== 'string') return false;
  let file: unknown;
  try {
    // The answer as the call would get it: a refusal, or a path that leaves the sandbox, throws.
    file = resultOf<{ path?: unknown }>(reply, sandboxRoot).path;
  } catch {
    return false;
  }
  if (typeof file !== 'string') return false;
  return lstat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}
