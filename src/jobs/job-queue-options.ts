import type { SpillwayError } from '../errors.js';
import type { FileJobObservation } from '../files/pool/file-pool.js';
import type { JobKind } from '../files/pool/worker-task.js';
import type { Logger } from '../log/logger.js';
import type { AdmissionGate } from '../util/admission-gate.js';

export interface FileJobQueueOptions {
  /** coordination.redis.url and keyPrefix. */
  redisUrl: string;
  keyPrefix: string;
  /** This replica's sandbox root (results come back relative to it). */
  sandboxRoot: string;
  /** Calls of this replica waiting for a job: every queue has a cap. */
  gate: AdmissionGate;
  /** Longest wait for some worker to take a job (server.queueWaitMs); then the job is removed and the call gets BUSY. */
  waitMs: () => number;
  /** Longest a job may run once taken (workers.taskTimeoutMs plus the time a dead worker's job takes to be taken again). */
  runMs: () => number;
  logger: Logger;
  /** Told when a job is queued, taken and finished (metrics count jobs from it, as for the local pool). */
  observer?: (event: FileJobObservation) => void;
  /** How often jobs still waiting for an answer are looked up directly, in case an event was missed (reconnects). Default 2 s. */
  reconcileMs?: number;
}

/** A call waiting for its job. */
export interface Waiting {
  kind: JobKind;
  queuedAt: number;
  startedAt?: number;
  /** Its job is in Redis (added, or found there by an earlier call): until then a lookup finds nothing and must not count. */
  queued?: boolean;
  onActive(): void;
  onProgress(progress: unknown): void;
  onCompleted(reply: unknown): void;
  onError(error: SpillwayError): void;
  onFailed(reason: string): void;
  /** This replica closes while the call waits. */
  onShutdown(): void;
}
