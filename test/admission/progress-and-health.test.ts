import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import type { GateStats } from '../../src/util/admission-gate.js';
import { heldWorkers, holdControl } from '../fixtures/held-workers/hold-control.js';
import { sample, scrape } from '../helpers/prometheus-text.js';
import { makeRows } from '../helpers/temp-host.js';
import { call, filesHost, spillRows } from '../files/helpers.js';

function queues(health: Record<string, unknown>): Record<string, GateStats> {
  return health.queues as Record<string, GateStats>;
}

test('an export that waits for a worker sends notifications/progress (waiting, then building) to a client that sent a progressToken', async (t) => {
  const env = await filesHost({ workers: { poolSize: 1, maxQueue: 4, taskTimeoutMs: 600_000 } }, { workerModules: heldWorkers });
  const hold = holdControl();
  t.after(async () => {
    hold.release('*');
    hold.close();
    await env.cleanup();
  });
  const rows = makeRows(40);
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const client = new Client({ name: 'progress-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => client.close());
  const spilled = await client.callTool({ name: 'rows', arguments: {} });
  const source = (spilled._meta?.['spillway/spill'] as { path: string }).path;

  // The only thread is held by another conversation's export.
  const librarySource = await spillRows(env, rows);
  const holding = call(env, 'export_table', { source: librarySource, format: 'csv', filename: 'hold-thread.csv' });
  await hold.started('hold-thread.csv');

  const updates: Progress[] = [];
  let sawWaiting: () => void = () => undefined;
  const waitingSeen = new Promise<void>((resolve) => (sawWaiting = resolve));
  const exported = client.callTool({ name: 'export_table', arguments: { source, format: 'csv', filename: 'mine.csv' } }, CallToolResultSchema, {
    onprogress: (progress) => {
      updates.push(progress);
      if (/Waiting/.test(progress.message ?? '')) sawWaiting();
    },
    resetTimeoutOnProgress: true,
    timeout: 600_000,
  });
  await waitingSeen;
  hold.release('hold-thread.csv');
  const result = await exported;
  assert.equal(result.isError, false, JSON.stringify(result.content));
  assert.equal((await holding).isError, false);
  const messages = updates.map((update) => update.message ?? '');
  assert.match(messages[0] ?? '', /Waiting for a free csv worker \(1 ahead\)/);
  assert.ok(
    messages.some((message) => /Building the csv file/.test(message)),
    messages.join(' | '),
  );
  const steps = updates.map((update) => update.progress);
  assert.deepEqual(
    steps,
    [...steps].sort((a, b) => a - b),
    'progress only grows',
  );

  // Without a progressToken nothing is sent, and the call works as before.
  const quiet = await client.callTool({ name: 'export_table', arguments: { source, format: 'csv', filename: 'quiet.csv' } });
  assert.equal(quiet.isError, false);
});

test('GET /healthz shows each queue: running, waiting, limit and refusals; /metrics has them as gauges', async (t) => {
  const env = await filesHost({ workers: { poolSize: 1, maxQueue: 1, taskTimeoutMs: 600_000 } }, { workerModules: heldWorkers });
  const hold = holdControl();
  t.after(async () => {
    hold.release('*');
    hold.close();
    await env.cleanup();
  });
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const healthz = async () => queues((await (await fetch(front.url.replace('/mcp', '/healthz'))).json()) as Record<string, unknown>);

  const idle = await healthz();
  for (const name of ['exports', 'charts', 'sql', 'query_files', 'scripts']) {
    const queue = idle[name];
    assert.ok(queue, `/healthz has no ${name} queue: ${JSON.stringify(Object.keys(idle))}`);
    assert.deepEqual([queue.running, queue.waiting, queue.refused], [0, 0, { full: 0, deadline: 0 }], name);
  }
  assert.equal(idle.exports?.limit, 2);

  const source = await spillRows(env, makeRows(10));
  const held = call(env, 'export_table', { source, format: 'csv', filename: 'hold-a.csv' });
  await hold.started('hold-a.csv');
  const waiting = call(env, 'export_table', { source, format: 'csv', filename: 'b.csv' });
  while ((await healthz()).exports?.waiting !== 1) await new Promise((resolve) => setImmediate(resolve));
  const refused = await call(env, 'export_table', { source, format: 'csv', filename: 'c.csv' });
  assert.equal(refused.error?.code, 'BUSY');
  const busy = (await healthz()).exports;
  assert.deepEqual([busy?.running, busy?.waiting, busy?.limit, busy?.refused.full], [1, 1, 2, 1]);
  const metrics = await scrape(front.url.replace('/mcp', '/metrics'));
  assert.equal(sample(metrics, 'spillway_queue_refused', { queue: 'exports', reason: 'full' }), 1);
  assert.equal(sample(metrics, 'spillway_queue_waiting', { queue: 'exports' }), 1);
  assert.equal(sample(metrics, 'spillway_queue_limit', { queue: 'exports' }), 2);
  hold.release('*');
  await Promise.all([held, waiting]);
});
