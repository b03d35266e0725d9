import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test, type TestContext } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startFileJobWorker } from '../../src/jobs/file-job-worker.js';
import { silentLogger } from '../../src/log/logger.js';
import { createHostMetrics } from '../../src/metrics/host-metrics.js';
import { parsePrometheusText, sample } from '../helpers/prometheus-text.js';
import { isRetryable } from '../../src/errors.js';
import { defineTool } from '../../src/host/define-tool.js';
import type { Host } from '../../src/host/host.js';
import { heldWorkers, holdControl } from '../fixtures/held-workers/hold-control.js';
import { childExit, spawnChild } from '../helpers/child-process.js';
import { redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * File-building jobs through Redis (BullMQ), end to end with real Redis,
 * real worker threads and real worker processes: the call waits for its job,
 * a dead worker's job is taken again and publishes its file exactly once, a
 * cancelled call removes its job, no worker means BUSY, Redis away means
 * COORDINATION_UNAVAILABLE.
 */

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the file-job queue tests: ${skip}`);

const rowsTool = defineTool({
  name: 'rows',
  description: 'Returns n rows.',
  inputSchema: Type.Object({ n: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  handler: async (args) => ({ value: makeRows(args.n) }),
});

const workerFixture = new URL('../fixtures/job-worker.js', import.meta.url);

interface Fleet {
  host: Host;
  redisUrl: string;
  keyPrefix: string;
  queue: Queue;
  source: string;
}

/** A replica (host) on a fresh sandbox and Redis, with one spilled table in conversation "c". */
async function fleet(
  t: TestContext,
  jobs: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  options: Parameters<typeof tempHost>[1] = {},
): Promise<Fleet> {
  const redis = await startRedis(t);
  const keyPrefix = 'jobs-test:';
  const temp = await tempHost({ coordination: { redis: { url: redis.url, keyPrefix }, jobs }, ...extra }, options);
  t.after(() => temp.cleanup());
  temp.host.registerTool(rowsTool);
  const spilled = await temp.host.execute({ name: 'rows', arguments: { n: 300 } }, { conversationId: 'c' });
  assert.ok(spilled.spill !== undefined, spilled.text);
  const queue = new Queue('file-jobs', { connection: { host: '127.0.0.1', port: redis.port }, prefix: 'jobs-test' });
  queue.on('error', () => undefined);
  t.after(() => queue.close());
  return { host: temp.host, redisUrl: redis.url, keyPrefix, queue, source: spilled.spill.path };
}

async function jobCounts(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children');
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

async function outputs(host: Host): Promise<string[]> {
  return (await readdir(host.sandbox.conversation('c').folderPath('outputs')).catch(() => [] as string[])).sort();
}

/** Starts a worker process (the fixture) and waits for its "ready" line. */
async function startWorker(t: TestContext, f: Fleet, options: { dying?: boolean; lockMs?: number } = {}): Promise<ChildProcess> {
  const env = {
    ...process.env,
    SPILLWAY_TEST_WORKER: JSON.stringify({
      redisUrl: f.redisUrl,
      keyPrefix: f.keyPrefix,
      sandboxRoot: f.host.sandbox.root,
      lockMs: options.lockMs ?? 1000,
      dying: options.dying === true,
    }),
  };
  const child = spawnChild(t, process.execPath, [workerFixture.pathname], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'ready') resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was ready`)));
  });
  return child;
}

function csvRows(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/);
}

test('with Redis, an export is a job: the replica builds it on its own threads, and leaves no job and no marker behind', { skip }, async (t) => {
  const f = await fleet(t, { onReplicas: true });
  const events: string[] = [];
  f.host.on('file-job', (event) => events.push(event.phase));
  const result = await f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv', filename: 'all.csv' } }, { conversationId: 'c' });
  assert.equal(result.isError, false, result.text);
  const text = await readFile(path.join(f.host.sandbox.conversation('c').dir, 'outputs', 'all.csv'), 'utf8');
  assert.equal(csvRows(text).length, 301, 'header and 300 rows');
  assert.deepEqual(events, ['queued', 'started', 'finished']);
  assert.deepEqual(await outputs(f.host), ['all.csv'], 'no marker or temporary file is left');
  assert.equal(await jobCounts(f.queue), 0, 'the finished job is removed from Redis');
});

test('a worker process builds the files when replicas take no jobs, with progress reported to the call', { skip }, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  await startWorker(t, f);
  const progress: string[] = [];
  const result = await f.host.execute(
    { name: 'export_table', arguments: { source: f.source, format: 'xlsx', filename: 'all.xlsx' } },
    { conversationId: 'c', onProgress: (update) => progress.push(update.message ?? '') },
  );
  assert.equal(result.isError, false, result.text);
  assert.ok(
    progress.some((message) => /Building the xlsx file/.test(message)),
    progress.join(' | '),
  );
  assert.deepEqual(await outputs(f.host), ['all.xlsx']);
  const drawn = await f.host.execute({ name: 'draw_table', arguments: { source: f.source, range: { start: 0, count: 3 } } }, { conversationId: 'c' });
  assert.equal(drawn.isError, false, drawn.text);
  assert.match(drawn.text, /\| id/);
});

test('charts are jobs too: a worker process renders build_chart, and the PNG comes back intact', { skip }, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  await startWorker(t, f);
  const kinds: string[] = [];
  f.host.on('file-job', (event) => {
    if (event.phase === 'finished') kinds.push(`${event.kind}:${event.outcome}`);
  });
  const result = await f.host.execute(
    {
      name: 'build_chart',
      arguments: {
        source: f.source,
        spec: { mark: 'bar', encoding: { x: { field: 'name', type: 'nominal' }, y: { field: 'amount', type: 'quantitative' } } },
        range: { start: 0, count: 12 },
        filename: 'bars',
      },
    },
    { conversationId: 'c' },
  );
  assert.equal(result.isError, false, result.text);
  assert.deepEqual(kinds, ['chart:ok']);
  const names = await outputs(f.host);
  assert.deepEqual(names, ['bars.png', 'bars.svg']);
  const png = await readFile(path.join(f.host.sandbox.conversation('c').folderPath('outputs'), 'bars.png'));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
  const svg = await readFile(path.join(f.host.sandbox.conversation('c').folderPath('outputs'), 'bars.svg'), 'utf8');
  assert.equal((svg.match(/role-mark/g) ?? []).length > 0 || svg.includes('<path'), true);
});

for (const when of ['before', 'after'] as const) {
  test(`a worker killed ${when} publishing: another worker takes the job again and the file exists exactly once`, { skip }, async (t) => {
    const f = await fleet(t, { onReplicas: false, lockMs: 1000 });
    const dying = await startWorker(t, f, { dying: true });
    const call = f.host.execute(
      { name: 'export_table', arguments: { source: f.source, format: 'csv', filename: `die-${when}-x.csv` } },
      { conversationId: 'c' },
    );
    await childExit(dying);
    assert.equal(dying.signalCode, 'SIGKILL');
    if (when === 'after') assert.ok((await outputs(f.host)).includes(`die-${when}-x.csv`), 'the first run published its file');
    // The survivor finds the dead worker's job after its lock ran out and builds it again.
    await startWorker(t, f);
    const result = await call;
    assert.equal(result.isError, false, result.text);
    const names = (await outputs(f.host)).filter((name) => !name.startsWith('.'));
    assert.deepEqual(names, [`die-${when}-x.csv`], 'one file, under its own name');
    const text = await readFile(path.join(f.host.sandbox.conversation('c').dir, 'outputs', names[0]!), 'utf8');
    assert.equal(csvRows(text).length, 301, 'complete');
    assert.match(result.text, new RegExp(`outputs/die-${when}-x\\.csv`));
  });
}

test('no worker takes the job within server.queueWaitMs: BUSY, the job is removed, nothing is written', { skip }, async (t) => {
  const f = await fleet(t, { onReplicas: false }, { server: { queueWaitMs: 300 } });
  const result = await f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv' } }, { conversationId: 'c' });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'BUSY', result.text);
  assert.match(result.text, /spillway worker/);
  assert.equal(await jobCounts(f.queue), 0);
  assert.deepEqual(await outputs(f.host), []);
});

test('a call cancelled while its job waits removes the job', { skip }, async (t) => {
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

test('a call cancelled while a worker builds its file stops that worker, removes the job and leaves no file', { skip }, async (t) => {
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
  const result = await call;
  assert.equal(result.isError, true, result.text);
  // The worker hears of it through Redis, ends the thread, and drops the job.
  await waitFor(async () => (await jobCounts(f.queue)) === 0, 'the cancelled job to be removed');
  hold.release('*');
  assert.deepEqual(await outputs(f.host), []);
});

test('Redis gone: an export fails with COORDINATION_UNAVAILABLE (retryable) and writes nothing', { skip }, async (t) => {
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
  { skip },
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

test('a job lost from Redis (restarted without its data) fails its call with WORKER_FAILED instead of waiting forever', { skip }, async (t) => {
  const f = await fleet(t, { onReplicas: false }, { server: { queueWaitMs: 1000 } });
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

test("/metrics shows the fleet's queue: a job waiting for a worker, then none once a worker has built it", { skip }, async (t) => {
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

test('a replica that shuts down answers the calls still waiting for jobs at once; the jobs stay queued for a worker', { skip }, async (t) => {
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
