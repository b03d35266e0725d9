import { randomBytes } from 'node:crypto';

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
