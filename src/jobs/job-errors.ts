import { SpillwayError } from '../errors.js';
import type { JobKind } from '../files/pool/worker-task.js';
import { formatCount } from '../util/format.js';

// What a call waiting for a fleet job is told when the job cannot answer.

export function unavailable(error: unknown): SpillwayError {
  return new SpillwayError(
    'COORDINATION_UNAVAILABLE',
    `The file-job queue (Redis) cannot be reached (${error instanceof Error ? error.message : String(error)}); nothing was queued and no file was written. Try the call again in a moment.`,
    { retryable: true },
  );
}

export function noWorker(kind: JobKind, waitMs: number): SpillwayError {
  return new SpillwayError(
    'BUSY',
    `No worker took the ${kind} job within ${formatCount(waitMs)} ms (server.queueWaitMs): every worker is busy, or no \`spillway worker\` is running (and coordination.jobs.onReplicas is false). The job was removed; nothing was written. Try again in a moment.`,
    { worker: kind, waitMs, retryable: true },
  );
}

export function lost(kind: JobKind): SpillwayError {
  return new SpillwayError(
    'WORKER_FAILED',
    `The ${kind} job is no longer in Redis (was Redis restarted without its data?); no file is reported. Try the call again.`,
    { worker: kind, retryable: true },
  );
}

export function timedOut(kind: JobKind, runMs: number): SpillwayError {
  return new SpillwayError(
    'TOOL_TIMEOUT',
    `Building the ${kind} file took longer than ${formatCount(runMs)} ms (workers.taskTimeoutMs plus coordination.jobs.lockMs) and was stopped; no file is reported. Export fewer rows (range) or columns, or raise the limit.`,
    { worker: kind, timeoutMs: runMs },
  );
}

export function shutDown(kind: JobKind): SpillwayError {
  return new SpillwayError(
    'WORKER_FAILED',
    `This replica shut down while the ${kind} job was on its way; the job stays queued and its file may still appear in outputs/. Asking again with the same arguments waits for that job (or answers with its file) instead of building a second one.`,
    { worker: kind, retryable: true },
  );
}

export function failedOnWorker(kind: JobKind, reason: string): SpillwayError {
  return new SpillwayError('WORKER_FAILED', `The ${kind} job failed on its worker (${reason}); no file was written. The call can be retried.`, {
    worker: kind,
    reason,
    retryable: true,
  });
}
