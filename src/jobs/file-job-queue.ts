import path from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { SpillwayError } from '../errors.js';
import type { RunOptions } from '../files/pool/file-pool.js';
import type { FileRunner } from '../files/pool/file-runner.js';
import type { JobKind, WorkerKind } from '../files/pool/worker-task.js';
import { ConversationSandbox, removeJobMarker } from '../sandbox/index.js';
import { isJsonObject } from '../util/is-json-object.js';
import { resultOf, type FileJobData } from './file-job-data.js';
import { failedOnWorker, lost, noWorker, shutDown, timedOut, unavailable } from './job-errors.js';
import type { FileJobQueueOptions, Waiting } from './job-queue-options.js';
import { fileStillThere, isProgress, withJobId } from './job-task.js';
import { bullPrefix, cancelChannel, cancelledKey, fileJobQueueName, jobIdFor } from './job-names.js';
import { redisTimeMs } from '../coordination/redis-time.js';
import { JobConnections, settleWithin, whenReady } from './job-redis.js';

/**
 * The replica's side of the fleet's file-building jobs: a call's task becomes
 * a BullMQ job, some worker (a `spillway worker` node, or a replica's own
 * threads) builds the file, and the call waits for the answer with MCP
 * progress on the way. Every wait has a deadline: a job no worker takes within
 * server.queueWaitMs is removed (BUSY), one that runs past its time is
 * cancelled (TOOL_TIMEOUT). A cancelled call removes its job, or tells the
 * worker running it to stop. Redis unreachable: COORDINATION_UNAVAILABLE,
 * and nothing was queued.
 */
export class FileJobQueue implements FileRunner {
  /** Calls waiting, by job: a retried or repeated export joins the job already on its way. */
  private readonly waiting = new Map<string, Set<Waiting>>();
  private lastCounts: Record<string, number> | undefined;
  private countsReadAt = 0;
  private readingCounts = false;
  private reconcileTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly options: FileJobQueueOptions,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly producer: Redis,
    private readonly connections: JobConnections,
  ) {
    events.on('active', ({ jobId }) => this.each(jobId, (entry) => entry.onActive()));
    events.on('progress', ({ jobId, data }) => this.each(jobId, (entry) => entry.onProgress(data)));
    events.on('completed', ({ jobId, returnvalue }) => this.each(jobId, (entry) => entry.onCompleted(returnvalue)));
    events.on('failed', ({ jobId, failedReason }) => this.each(jobId, (entry) => entry.onFailed(failedReason)));
    // BullMQ prints errors nobody listens to; the connections already log theirs (once per change).
    events.on('error', () => undefined);
    queue.on('error', () => undefined);
  }

  /** Connects the queue and its event stream; fails with COORDINATION_UNAVAILABLE when Redis cannot be reached. */
  static async open(options: FileJobQueueOptions): Promise<FileJobQueue> {
    const logger = options.logger.child({ component: 'file-jobs' });
    const connections = new JobConnections(options.redisUrl, logger);
    const producer = connections.open('producer');
    const eventsConnection = connections.open('blocking');
    const prefix = bullPrefix(options.keyPrefix);
    const queue = new Queue(fileJobQueueName, { connection: producer, prefix });
    const events = new QueueEvents(fileJobQueueName, { connection: eventsConnection, prefix });
    try {
      await whenReady(producer, 5_000);
      await events.waitUntilReady();
    } catch (error) {
      queue.on('error', () => undefined);
      events.on('error', () => undefined);
      await settleWithin(Promise.allSettled([queue.close(), events.close()]), 2_000);
      connections.stop();
      throw unavailable(error);
    }
    return new FileJobQueue({ ...options, logger }, queue, events, producer, connections);
  }

  async run<R>(kind: WorkerKind, task: object, options: RunOptions = {}): Promise<R> {
    if (this.closed) throw new SpillwayError('WORKER_FAILED', 'The file-job queue is shut down (the host is closing).');
    const release = await this.options.gate.admit({
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
    });
    try {
      return await this.submit<R>(kind, task, options);
    } finally {
      release();
    }
  }

  health(): Record<string, unknown> {
    const fleet = this.fleetCounts();
    return {
      mode: 'queue',
      queue: fileJobQueueName,
      connected: this.producer.status === 'ready',
      waitingCalls: [...this.waiting.values()].reduce((sum, entries) => sum + entries.size, 0),
      admission: this.options.gate.stats(),
      ...(fleet === undefined ? {} : { fleet }),
    };
  }

  /**
   * The fleet's jobs by state (waiting, active, failed), as last read from Redis;
   * reading asks Redis again in the background when that was over a second ago,
   * so /metrics and /healthz never wait on Redis (a scrape may show the
   * previous second's counts). Undefined until the first answer.
   */
  fleetCounts(): Record<string, number> | undefined {
    const now = Date.now();
    if (now - this.countsReadAt >= 1_000 && !this.readingCounts && !this.closed) {
      this.readingCounts = true;
      this.countsReadAt = now;
      void this.queue
        .getJobCounts('waiting', 'active', 'failed')
        .then((counts) => (this.lastCounts = counts))
        .catch(() => undefined)
        .finally(() => (this.readingCounts = false));
    }
    return this.lastCounts;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconcileTimer !== undefined) clearInterval(this.reconcileTimer);
    // Calls still waiting get an answer now; their jobs stay queued, and a worker still builds
    // their files (the client finds them in outputs/ through another replica).
    for (const jobId of [...this.waiting.keys()]) this.each(jobId, (entry) => entry.onShutdown());
    await settleWithin(Promise.allSettled([this.events.close(), this.queue.close()]), 2_000);
    this.connections.stop();
  }

  /** Queues one job and waits for its answer; the caller has passed its own admission gate (run passes the exports gate). */
  async submit<R>(kind: JobKind, task: object, options: RunOptions = {}): Promise<R> {
    if (this.closed) throw new SpillwayError('WORKER_FAILED', 'The file-job queue is shut down (the host is closing).');
    const jobId = jobIdFor(kind, task, this.options.sandboxRoot);
    const waitMs = this.options.waitMs();
    let data: FileJobData;
    let redisNowMs: number;
    try {
      redisNowMs = await redisTimeMs(this.producer);
      data = { kind, task: withJobId(task, jobId), takeByMs: redisNowMs + waitMs };
    } catch (error) {
      throw unavailable(error);
    }
    const observer = this.options.observer;
    const queuedAt = Date.now();
    let settled = false;
    /** Set at once when the caller aborts (the answer follows the job's removal). */
    let cancelled = false;
    let startedAt: number | undefined;
    // A worker may take the job before queue.add resolves here: observers still hear queued before started.
    let queuedTold = false;
    const tellStarted = () => observer?.({ phase: 'started', kind, waitMs: (startedAt ?? queuedAt) - queuedAt });
    /** This call's entry among those waiting for the job (others may have joined it). */
    let ours: Waiting | undefined;
    /** Another call of this replica waits for the same job: stopping this call must not stop the job. */
    const shared = () => (this.waiting.get(jobId)?.size ?? 0) > 1;

    const answer = new Promise<unknown>((resolve, reject) => {
      let deadline: NodeJS.Timeout | undefined;
      const setDeadline = (ms: number, onExpiry: () => void) => {
        if (deadline !== undefined) clearTimeout(deadline);
        deadline = setTimeout(onExpiry, ms);
      };
      const finish = (outcome: { reply: unknown } | { error: SpillwayError }) => {
        if (settled) return;
        settled = true;
        if (deadline !== undefined) clearTimeout(deadline);
        options.signal?.removeEventListener('abort', onAbort);
        this.leave(jobId, entry);
        if (this.waiting.size === 0 && this.reconcileTimer !== undefined) {
          clearInterval(this.reconcileTimer);
          this.reconcileTimer = undefined;
        }
        if ('reply' in outcome) resolve(outcome.reply);
        else reject(outcome.error);
      };
      const entry: Waiting = {
        kind,
        queuedAt,
        onActive: () => {
          if (settled) return;
          // Taken (again, after a dead worker): the running deadline starts now.
          const first = startedAt === undefined;
          startedAt = entry.startedAt = Date.now();
          if (first) {
            options.onStarted?.();
            if (queuedTold) tellStarted();
          }
          setDeadline(this.options.runMs(), () => {
            if (shared()) finish({ error: timedOut(kind, this.options.runMs()) });
            else void this.cancelThen(jobId, () => finish({ error: timedOut(kind, this.options.runMs()) }));
          });
        },
        onProgress: (progress) => {
          if (!settled && isProgress(progress)) options.onProgress?.(progress);
        },
        onCompleted: (reply) => finish({ reply }),
        onError: (error) => finish({ error }),
        onShutdown: () => finish({ error: shutDown(kind) }),
        onFailed: (reason) => finish({ error: failedOnWorker(kind, reason) }),
      };
      const onAbort = () => {
        cancelled = true;
        const error = new SpillwayError('TOOL_FAILED', `The ${kind} export was cancelled by the caller; no file was written.`, { worker: kind });
        if (shared()) finish({ error });
        else void this.cancelThen(jobId, () => finish({ error }));
      };
      ours = entry;
      const entries = this.waiting.get(jobId) ?? new Set<Waiting>();
      entries.add(entry);
      this.waiting.set(jobId, entries);
      if (options.signal?.aborted === true) onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      setDeadline(waitMs, () => {
        void (async () => {
          // Gone from Redis (restarted without its data): nothing will ever answer for it.
          // (Only once added: a job still being added is not in Redis yet either.)
          if (entry.queued === true && (await this.queue.getJobState(jobId).catch(() => 'waiting')) === 'unknown') return finish({ error: lost(kind) });
          if (shared()) return finish({ error: noWorker(kind, waitMs) });
          const removed = await this.queue.remove(jobId).catch(() => undefined);
          // Removed: nobody took it. Redis away (undefined): the job may stay queued, but no worker
          // starts it after its take-by time. Not removed: a worker took it this instant; keep waiting.
          if (removed !== 0) finish({ error: noWorker(kind, waitMs) });
        })();
      });
    });
    answer.catch(() => undefined);

    // Cancelled before it was queued: nothing to queue.
    if (settled || cancelled) return resultOf<R>(await answer, this.options.sandboxRoot);
    try {
      const earlier = await this.earlierRun(jobId, redisNowMs);
      if (earlier === 'none') {
        // An earlier call with this id that was cancelled left its mark: this job is a new one.
        await this.producer.del(cancelledKey(this.options.keyPrefix, jobId));
        // Added once: a call of another replica adding the same id at this instant adds nothing, and both wait for one job.
        await this.queue.add(kind, data, {
          jobId,
          attempts: 1,
          removeOnComplete: { age: 3600, count: 10_000 },
          removeOnFail: { age: 86_400, count: 10_000 },
        });
      } else if (earlier !== 'running') ours?.onCompleted(earlier.reply);
      if (ours !== undefined) ours.queued = true;
    } catch (error) {
      const refused = unavailable(error);
      ours?.onError(refused);
      throw refused;
    }
    observer?.({ phase: 'queued', kind });
    queuedTold = true;
    if (startedAt !== undefined) tellStarted();
    if (!settled) this.startReconciling();
    if (options.onWaiting !== undefined) {
      void this.queue.getWaitingCount().then(
        (count) => {
          if (!settled && startedAt === undefined && count > 1) options.onWaiting?.(count - 1);
        },
        () => undefined,
      );
    }

    let outcome: 'ok' | 'failed' = 'failed';
    let errorCode: string | undefined;
    try {
      const result = resultOf<R>(await answer, this.options.sandboxRoot);
      outcome = 'ok';
      return result;
    } catch (error) {
      errorCode = SpillwayError.is(error) ? error.code : 'WORKER_FAILED';
      throw error;
    } finally {
      const end = Date.now();
      observer?.({
        phase: 'finished',
        kind,
        outcome,
        started: startedAt !== undefined,
        ...(errorCode === undefined ? {} : { errorCode }),
        ...(startedAt === undefined ? {} : { runMs: end - startedAt }),
        totalMs: end - queuedAt,
      });
      // Finished for good: its record and its marker are no longer needed.
      if (outcome === 'ok') await Promise.all([this.queue.remove(jobId).catch(() => undefined), this.removeMarker(task, jobId)]);
    }
  }

  /**
   * What became of an earlier call's job with this id (the same export asked
   * again, see jobIdFor): still on its way → "running", the call joins it;
   * built, with its file still there → its answer; failed, refused, its file
   * gone, or still waiting past its take-by time (no worker will start it) →
   * removed, and "none": build anew.
   */
  private async earlierRun(jobId: string, redisNowMs: number): Promise<'none' | 'running' | { reply: unknown }> {
    const state = await this.queue.getJobState(jobId);
    if (state === 'unknown') return 'none';
    if (state === 'active') return 'running';
    const job = await this.queue.getJob(jobId);
    if (job === undefined) return 'none';
    if (state === 'completed') {
      if (await fileStillThere(job.returnvalue, this.options.sandboxRoot)) return { reply: job.returnvalue };
    } else if (state !== 'failed') {
      const takeByMs = isJsonObject(job.data) && typeof job.data.takeByMs === 'number' ? job.data.takeByMs : undefined;
      if (takeByMs === undefined || takeByMs > redisNowMs) return 'running';
    }
    // Not removed: a worker took it this instant (a locked job cannot be removed).
    return (await this.queue.remove(jobId)) === 1 ? 'none' : 'running';
  }

  /**
   * Cancels the job, then answers the call: a caller that looks right after its answer finds
   * no job. The answer never waits on an unreachable Redis longer than two seconds.
   */
  private async cancelThen(jobId: string, answer: () => void): Promise<void> {
    await settleWithin(this.cancel(jobId), 2_000);
    answer();
  }

  /** Stops a job: removed while it waits; a worker running it is told to stop (and drops it if it takes it later). */
  private async cancel(jobId: string): Promise<void> {
    // Each step on its own: a removal that fails (the job is running, Redis hiccups) must not
    // keep the workers from being told, nor the other way round.
    const steps: [string, () => Promise<unknown>][] = [
      // A worker that takes the job later finds this key and drops it.
      ['mark', () => this.producer.set(cancelledKey(this.options.keyPrefix, jobId), '1', 'PX', 3_600_000)],
      // A worker running it (or taking it this instant) stops it.
      ['tell', () => this.producer.publish(cancelChannel(this.options.keyPrefix), jobId)],
      // A job still waiting goes at once.
      ['remove', () => this.queue.remove(jobId)],
    ];
    for (const [step, run] of steps) {
      try {
        await run();
      } catch (error) {
        this.options.logger.warn({ err: error, jobId, step }, 'file jobs: a step of cancelling a job failed (it may still build its file)');
      }
    }
  }

  /** Looks jobs up directly every few seconds while calls wait, in case the event stream missed an event. */
  private startReconciling(): void {
    if (this.reconcileTimer !== undefined || this.closed) return;
    this.reconcileTimer = setInterval(() => void this.reconcile(), this.options.reconcileMs ?? 2_000);
    this.reconcileTimer.unref();
  }

  private async reconcile(): Promise<void> {
    for (const [jobId, entries] of [...this.waiting]) {
      // A call still adding its job (a loaded Redis may take seconds) would find no job and fail as if Redis lost it.
      if (![...entries].some((entry) => entry.queued === true)) continue;
      try {
        // The state first, then the job: a job fetched first may complete before its state is read,
        // and would then show "completed" with the answer it did not have yet.
        const state = await this.queue.getJobState(jobId);
        if (state === 'unknown') {
          this.each(jobId, (entry) => entry.onFailed('the job is no longer in Redis: was Redis restarted without its data?'));
          continue;
        }
        if (state === 'active') this.each(jobId, (entry) => entry.startedAt === undefined && entry.onActive());
        if (state !== 'completed' && state !== 'failed') continue;
        const job = await this.queue.getJob(jobId);
        if (job === undefined) continue;
        if (state === 'completed' && job.returnvalue !== null && job.returnvalue !== undefined) this.each(jobId, (entry) => entry.onCompleted(job.returnvalue));
        else if (state === 'failed') this.each(jobId, (entry) => entry.onFailed(job.failedReason));
      } catch {
        return; // Redis away: the events (or the deadlines) settle the calls
      }
    }
  }

  /** Tells every call waiting for `jobId` (a copy: answering removes a call from the set). */
  private each(jobId: string, tell: (entry: Waiting) => void): void {
    for (const entry of [...(this.waiting.get(jobId) ?? [])]) tell(entry);
  }

  private leave(jobId: string, entry: Waiting): void {
    const entries = this.waiting.get(jobId);
    entries?.delete(entry);
    if (entries?.size === 0) this.waiting.delete(jobId);
  }

  private async removeMarker(task: object, jobId: string): Promise<void> {
    const output = (task as { output?: unknown }).output;
    if (!isJsonObject(output) || output.kind !== 'sandbox' || typeof output.principal !== 'string' || typeof output.conversationId !== 'string') return;
    try {
      const folder = new ConversationSandbox(this.options.sandboxRoot, output.conversationId, output.principal).folderPath('outputs');
      const filename = typeof output.filename === 'string' ? output.filename : '';
      await removeJobMarker(path.dirname(path.join(folder, filename)), jobId);
    } catch {
      // The sweep removes a marker left behind once it is old.
    }
  }
}
