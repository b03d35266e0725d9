import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { isRetryable } from '../../src/errors.js';
import { startFileJobWorker } from '../../src/jobs/file-job-worker.js';
import { silentLogger } from '../../src/log/logger.js';
import { createHostMetrics } from '../../src/metrics/host-metrics.js';
import { heldWorkers, holdControl } from '../fixtures/held-workers/hold-control.js';
import { parsePrometheusText, sample } from '../helpers/prometheus-text.js';
import { redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';
import { fleet, jobCounts, outputs, rowsTool, startWorker } from './job-fleet.js';

/**
 * The job queue's faults, with real Redis, threads and worker processes: no
 * worker takes a job (BUSY), a call cancelled while its job waits or runs, Redis
 * gone, a job taken after its call stopped waiting, a job lost from Redis, a
 * replica shutting down; and the fleet's queue in /metrics.
 */

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the file-job queue tests: ${skip}`);

/** Each test has its own deadline: one that hangs fails alone, with its name. */
const options = { skip, timeout: 120_000 };

test('no worker takes the job within server.queueWaitMs: BUSY, the job is removed, nothing is written', options, async (t) => {
  const f = await fleet(t, { onReplicas: false }, { server: { queueWaitMs: 300 } });
  const result = await f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv' } }, { conversationId: 'c' });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'BUSY', result.text);
  assert.match(result.text, /spillway worker/);
  assert.equal(await jobCounts(f.queue), 0);
  assert.deepEqual(await outputs(f.host), []);
});

test('a call cancelled while its job waits removes the job', options, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  const controller = new AbortController();
  f.host.on('file-job', (event) => {
    if (event.phase === 'queued') controller.abort();
  });
  const result = await f.host.execute(
    { name: 'export_table', arguments: { source: f.source, format: 'csv' } },
    { conversationId: 'c', signal: controller.signal },
  );
  assert.equal(result.isError, true, result.text);
  assert.equal(await jobCounts(f.queue), 0, 'the waiting job is gone');
  // A worker that starts now finds nothing to build.
  await startWorker(t, f);
  assert.deepEqual(await outputs(f.host), []);
});

test('a call cancelled while a worker builds its file stops that worker, removes the job and leaves no file', options, async (t) => {
  const hold = holdControl();
  t.after(() => hold.close());
  const f = await fleet(t, { onReplicas: true }, {}, { workerModules: heldWorkers });
  const controller = new AbortController();
  const call = f.host.execute(
    { name: 'export_table', arguments: { source: f.source, format: 'csv', filename: 'hold-cancel.csv' } },
    { conversationId: 'c', signal: controller.signal },
  );
  await hold.started('hold-cancel.csv');
  controller.abort();
  try {
    const result = await call;
    assert.equal(result.isError, true, result.text);
    // The worker hears of it through Redis, ends the thread, and drops the job.
    await waitFor(async () => (await jobCounts(f.queue)) === 0, 'the cancelled job to be removed');
  } finally {
    // Had the cancellation not reached the thread, it writes now and the check below fails.
    hold.release('*');
  }
  assert.deepEqual(await outputs(f.host), []);
});

test('Redis gone: an export fails with COORDINATION_UNAVAILABLE (retryable) and writes nothing', options, async (t) => {
  const redis = await startRedis(t);
  const temp = await tempHost({ coordination: { redis: { url: redis.url, keyPrefix: 'gone:' }, jobs: { onReplicas: true } } });
  t.after(() => temp.cleanup());
  temp.host.registerTool(rowsTool);
  const spilled = await temp.host.execute({ name: 'rows', arguments: { n: 300 } }, { conversationId: 'c' });
  assert.ok(spilled.spill !== undefined);
  await redis.kill();
  const result = await temp.host.execute({ name: 'export_table', arguments: { source: spilled.spill.path, format: 'csv' } }, { conversationId: 'c' });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'COORDINATION_UNAVAILABLE', result.text);
  assert.equal(isRetryable(result.error!.code), true);
  assert.deepEqual(await outputs(temp.host), []);
});

test(
  'a job still queued after its call stopped waiting (Redis was away at the deadline) is dropped by the worker that takes it: no file nobody waits for',
  options,
  async (t) => {
    const f = await fleet(t, { onReplicas: false });
    const target = { kind: 'sandbox', root: f.host.sandbox.root, principal: 'local', conversationId: 'c', filename: 'late.csv', onExisting: 'rename' };
    const source = { kind: 'sandbox', root: f.host.sandbox.root, principal: 'local', conversationId: 'c', path: f.source };
    await f.queue.add('csv', { kind: 'csv', task: { source, selection: { sort: [] }, output: target }, takeByMs: 1 }, { jobId: 'late-job' });
    const worker = await startFileJobWorker({
      redisUrl: f.redisUrl,
      keyPrefix: f.keyPrefix,
      sandboxRoot: f.host.sandbox.root,
      poolSize: 1,
      maxQueue: 4,
      taskTimeoutMs: 60_000,
      lockMs: 5_000,
      retries: 1,
      logger: silentLogger(),
    });
    t.after(() => worker.close());
    // Dropped jobs are removed; a job the worker built would stay "completed" (removed only by its caller).
    await waitFor(async () => (await jobCounts(f.queue)) === 0, 'the late job to be dropped');
    assert.deepEqual(await outputs(f.host), []);
  },
);

test('a job lost from Redis (restarted without its data) fails its call with WORKER_FAILED instead of waiting forever', options, async (t) => {
  // The job's state is looked up every 2 s while its call waits: found gone long before this deadline.
  const f = await fleet(t, { onReplicas: false }, { server: { queueWaitMs: 30_000 } });
  const probe = new Redis(f.redisUrl);
  probe.on('error', () => undefined);
  t.after(() => probe.disconnect());
  f.host.on('file-job', (event) => {
    if (event.phase === 'queued') void probe.flushall();
  });
  const result = await f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv' } }, { conversationId: 'c' });
  assert.equal(result.error?.code, 'WORKER_FAILED', result.text);
  assert.match(result.text, /no longer in Redis/);
});

test("/metrics shows the fleet's queue: a job waiting for a worker, then none once a worker has built it", options, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  const metrics = createHostMetrics(f.host, { processMetrics: false });
  t.after(() => metrics.close());
  const fleetJobs = async (state: string) => sample(parsePrometheusText(await metrics.render()), 'spillway_fleet_file_jobs', { state });
  const queued = new Promise<void>((resolve) => f.host.on('file-job', (event) => event.phase === 'queued' && resolve()));
  const call = f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv' } }, { conversationId: 'c' });
  await queued;
  await waitFor(async () => (await fleetJobs('waiting')) === 1, 'the gauge to show the waiting job');
  await startWorker(t, f);
  const result = await call;
  assert.equal(result.isError, false, result.text);
  await waitFor(async () => (await fleetJobs('waiting')) === 0 && (await fleetJobs('active')) === 0, 'the gauge to show an empty queue');
});

test('a replica that shuts down answers the calls still waiting for jobs at once; the jobs stay queued for a worker', options, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  const queued = new Promise<void>((resolve) => f.host.on('file-job', (event) => event.phase === 'queued' && resolve()));
  const call = f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv', filename: 'late.csv' } }, { conversationId: 'c' });
  await queued;
  await f.host.close();
  const result = await call;
  assert.equal(result.error?.code, 'WORKER_FAILED', result.text);
  assert.match(result.text, /shut down/);
  assert.equal(await f.queue.getWaitingCount(), 1, 'the job is still queued');
});
