import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GateStats, GateTimers } from '../../src/util/admission-gate.js';
import { heldWorkers, holdControl } from '../fixtures/held-workers/hold-control.js';
import { makeRows } from '../helpers/temp-host.js';
import { call, filesHost, ok, spillRows } from '../files/helpers.js';

const workers = { poolSize: 2, maxQueue: 1, taskTimeoutMs: 600_000 };

function exportsQueue(health: Record<string, unknown>): GateStats {
  const queues = health.queues as Record<string, GateStats>;
  assert.ok(queues.exports, `no exports queue in ${JSON.stringify(Object.keys(queues))}`);
  return queues.exports;
}

test('workers.maxQueue is enforced: with both threads held and one export waiting, the next is refused at once with BUSY', async (t) => {
  const env = await filesHost({ workers }, { workerModules: heldWorkers });
  const hold = holdControl();
  t.after(async () => {
    hold.release('*');
    hold.close();
    await env.cleanup();
  });
  const source = await spillRows(env, makeRows(50));

  const running = [
    call(env, 'export_table', { source, format: 'csv', filename: 'hold-1.csv' }),
    call(env, 'export_table', { source, format: 'xlsx', filename: 'hold-2.xlsx' }),
  ];
  await Promise.all([hold.started('hold-1.csv'), hold.started('hold-2.xlsx')]);
  const waiting = call(env, 'export_table', { source, format: 'csv', filename: 'waits.csv' });
  // The waiting export has been admitted to the line once the gate counts it.
  while (exportsQueue(env.host.health()).waiting === 0) await new Promise((resolve) => setImmediate(resolve));

  const refused = await call(env, 'export_table', { source, format: 'csv', filename: 'refused.csv' });
  assert.equal(refused.isError, true);
  assert.equal(refused.error?.code, 'BUSY');
  assert.deepEqual(refused.error?.details, { queue: 'exports', running: 2, waiting: 1, limit: 3, reason: 'full' });
  assert.match(refused.text, /3 exports running or waiting, limit 3 .*retry in a few seconds/);

  hold.release('*');
  for (const done of await Promise.all([...running, waiting])) ok(done);
  const queue = exportsQueue(env.host.health());
  assert.deepEqual(queue.refused, { full: 1, deadline: 0 });
  assert.deepEqual(queue.peak, { running: 2, waiting: 1 });
  assert.equal(queue.running + queue.waiting, 0);
  // Piscina itself never held more than the threads: the gate let no more through.
  assert.equal((env.host.health().workers as { queued: number }).queued, 0);
});

test('an export still waiting at server.queueWaitMs is refused with BUSY (reason deadline), not left hanging', async (t) => {
  const deadlines: (() => void)[] = [];
  const queueTimers: GateTimers = {
    setTimeout: (callback) => deadlines.push(callback),
    clearTimeout: () => undefined,
  };
  const env = await filesHost({ workers: { ...workers, poolSize: 1 } }, { workerModules: heldWorkers, queueTimers });
  const hold = holdControl();
  t.after(async () => {
    hold.release('*');
    hold.close();
    await env.cleanup();
  });
  const source = await spillRows(env, makeRows(10));
  const running = call(env, 'export_table', { source, format: 'csv', filename: 'hold-only.csv' });
  await hold.started('hold-only.csv');
  const waiting = call(env, 'export_table', { source, format: 'csv', filename: 'late.csv' });
  while (deadlines.length === 0) await new Promise((resolve) => setImmediate(resolve));
  deadlines[0]?.();
  const refused = await waiting;
  assert.equal(refused.error?.code, 'BUSY');
  assert.equal(refused.error?.details?.reason, 'deadline');
  assert.match(refused.text, /waited 30,000 ms \(server\.queueWaitMs\)/);
  hold.release('hold-only.csv');
  ok(await running);
  assert.deepEqual(exportsQueue(env.host.health()).refused, { full: 0, deadline: 1 });
});
