import { createHash, randomBytes } from 'node:crypto';
import type { JobKind } from '../files/pool/worker-task.js';
import { isJsonObject } from '../util/is-json-object.js';

/** The BullMQ queue of file-building jobs. */
export const fileJobQueueName = 'file-jobs';

/**
 * BullMQ puts its own prefix and a colon in front of its keys: the fleet's
 * key prefix without its trailing colons ("spillway:" → "spillway:file-jobs:…"
 * in Redis), so one prefix still separates fleets sharing a Redis.
 */
export function bullPrefix(keyPrefix: string): string {
  return keyPrefix.replace(/:+$/, '') || 'spillway';
}

/** The pub/sub channel on which replicas tell workers to stop a running job. */
export function cancelChannel(keyPrefix: string): string {
  return `${keyPrefix}${fileJobQueueName}:cancel`;
}

/** Set when a call gives up its job, so a worker that takes it a moment later drops it at once. */
export function cancelledKey(keyPrefix: string, jobId: string): string {
  return `${keyPrefix}${fileJobQueueName}:cancelled:${jobId}`;
}

/** A new job id: 32 hex digits (it also names the job's marker file, see publish-once.ts). */
export function newJobId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The id of a job that writes a file into a conversation's outputs/: derived
 * from what it builds (kind and task, keys in sorted order, the replica's own
 * mount of the sandbox left out), so the same export asked again while the
 * first is on its way (a client retrying after its replica died, or asking
 * twice at once) finds that job instead of building a second file. The task
 * names its principal and conversation: no other conversation arrives at the
 * same id. Other jobs (charts) get a new id each time.
 */
export function jobIdFor(kind: JobKind, task: object, sandboxRoot: string): string {
  const output = (task as { output?: unknown }).output;
  if (!isJsonObject(output) || output.kind !== 'sandbox') return newJobId();
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (!isJsonObject(value)) return value;
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((key) => !(key === 'root' && value[key] === sandboxRoot))
        .map((key) => [key, canonical(value[key])]),
    );
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical({ kind, task })))
    .digest('hex')
    .slice(0, 32);
}
