import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Queue, QueueEvents } from 'bullmq';
import { FileJobQueue } from '../../src/jobs/file-job-queue.js';
import { childExit } from '../helpers/child-process.js';
import { redisUnavailableReason } from '../helpers/redis-server.js';
import { csvRows, fleet, jobCounts, outputs, startWorker } from './job-fleet.js';

/**
 * File-building jobs through Redis (BullMQ), end to end with real Redis, real
 * worker threads and real worker processes: the call waits for its job, charts
 * are jobs too, and a dead worker's job is taken again and publishes its file
 * exactly once. Faults (no worker, cancellation, Redis away) are in job-faults.test.ts.
 */

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the file-job queue tests: ${skip}`);

/** Each test has its own deadline: one that hangs fails alone, with its name. */
const options = { skip, timeout: 120_000 };

test('with Redis, an export is a job: the replica builds it on its own threads, and leaves no job and no marker behind', options, async (t) => {
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

test('a job taken before queue.add has answered is still told as queued, then started (metrics never see started first)', options, async (t) => {
  const f = await fleet(t, { onReplicas: true });
  // Hold every add's answer until the replica's event stream has delivered that job's "active":
  // the order a loaded machine produces now and then, made certain.
  const activeSeen = new Map<string, () => void>();
  const originalEmit = QueueEvents.prototype.emit;
  const originalAdd = Queue.prototype.add;
  QueueEvents.prototype.emit = function (this: QueueEvents, event: string, ...args: unknown[]) {
    const result = (originalEmit as (this: QueueEvents, event: string, ...rest: unknown[]) => boolean).call(this, event, ...args);
    if (event === 'active') activeSeen.get((args[0] as { jobId: string }).jobId)?.();
    return result;
  } as typeof originalEmit;
  Queue.prototype.add = async function (this: Queue, ...args: Parameters<Queue['add']>) {
    const jobId = args[2]?.jobId ?? '';
    const active = new Promise<void>((resolve) => activeSeen.set(jobId, resolve));
    const job = await originalAdd.apply(this, args);
    await active;
    return job;
  } as typeof originalAdd;
  t.after(() => {
    QueueEvents.prototype.emit = originalEmit;
    Queue.prototype.add = originalAdd;
  });
  const events: string[] = [];
  f.host.on('file-job', (event) => events.push(event.phase));
  const result = await f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv', filename: 'all.csv' } }, { conversationId: 'c' });
  assert.equal(result.isError, false, result.text);
  assert.equal(activeSeen.size, 1, 'the add was held until its job was active');
  assert.deepEqual(events, ['queued', 'started', 'finished']);
});

test('a call whose job is still being added when the replica looks its jobs up is not failed as lost (a loaded Redis)', options, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  // The replica looks up the jobs its calls wait for every few seconds (reconcile). Call B's add
  // is held until one such pass, begun while B waited, has finished: the order a loaded Redis
  // produces now and then (CI saw a fleet export fail "no longer in Redis"), made certain.
  const afterPass: (() => void)[] = [];
  const queueProto = FileJobQueue.prototype as unknown as { reconcile(this: FileJobQueue): Promise<void> };
  const originalReconcile = queueProto.reconcile;
  queueProto.reconcile = async function (this: FileJobQueue) {
    const waiting = afterPass.splice(0);
    await originalReconcile.call(this);
    for (const resume of waiting) resume();
  };
  const originalAdd = Queue.prototype.add;
  let adds = 0;
  Queue.prototype.add = async function (this: Queue, ...args: Parameters<Queue['add']>) {
    adds += 1;
    if (adds === 2) await new Promise<void>((resolve) => afterPass.push(resolve));
    return originalAdd.apply(this, args);
  } as typeof originalAdd;
  t.after(() => {
    queueProto.reconcile = originalReconcile;
    Queue.prototype.add = originalAdd;
  });
  const queued: string[] = [];
  const bothQueued = new Promise<void>((resolve) =>
    f.host.on('file-job', (event) => {
      if (event.phase === 'queued' && queued.push(event.kind) === 2) resolve();
    }),
  );
  // A waits for a worker (none yet), so the replica keeps looking its jobs up; then B.
  const first = f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'csv', filename: 'a.csv' } }, { conversationId: 'c' });
  await new Promise<void>((resolve) => f.host.once('file-job', () => resolve()));
  const second = f.host.execute({ name: 'export_table', arguments: { source: f.source, format: 'xlsx', filename: 'b.xlsx' } }, { conversationId: 'c' });
  await bothQueued;
  await startWorker(t, f);
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.isError, false, a.text);
  assert.equal(b.isError, false, b.text);
  assert.equal(adds, 2);
  assert.deepEqual(await outputs(f.host), ['a.csv', 'b.xlsx']);
});

test('a worker process builds the files when replicas take no jobs, with progress reported to the call', options, async (t) => {
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

test('charts are jobs too: a worker process renders build_chart, and the PNG comes back intact', options, async (t) => {
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
  test(`a worker killed ${when} publishing: another worker takes the job again and the file exists exactly once`, options, async (t) => {
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
