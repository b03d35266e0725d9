import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { acquireSweepLock } from '../../src/retention/sweep-lock.js';
import { SweepScheduler } from '../../src/retention/sweep-scheduler.js';
import type { SweepReport } from '../../src/retention/sweep-report.js';
import { startRetention } from '../../src/retention/start-retention.js';
import { silentLogger } from '../../src/log/logger.js';
import { startRuntime } from '../../src/runtime/start-runtime.js';
import { tempConfig, tempHost } from '../helpers/temp-host.js';
import { seedFile } from './seed-sandbox.js';

test('a manual run during a sweep joins it instead of starting a second one', async () => {
  let runs = 0;
  let finish!: () => void;
  const scheduler = new SweepScheduler({
    cron: '0 */6 * * *',
    logger: silentLogger(),
    sweep: async () => {
      runs += 1;
      await new Promise<void>((resolve) => (finish = resolve));
      return { startedAt: 'a', finishedAt: 'b', durationMs: 1, deleted: { files: 0, bytes: 0 } } as SweepReport;
    },
  });
  const first = scheduler.runNow();
  const second = scheduler.runNow();
  assert.equal(first, second);
  assert.equal(scheduler.health().running, true);
  finish();
  assert.equal((await first).outcome, 'ok');
  assert.equal(runs, 1);
  assert.equal(scheduler.health().running, false);
});

test('an invalid cron on reload keeps the current schedule; a valid one replaces it', () => {
  const scheduler = new SweepScheduler({ cron: '0 */6 * * *', logger: silentLogger(), sweep: () => Promise.reject(new Error('not run')) });
  scheduler.start();
  try {
    scheduler.reschedule('not a cron');
    assert.equal(scheduler.health().schedule, '0 */6 * * *');
    const next = new Date(scheduler.health().nextRunAt ?? '');
    assert.equal(next.getMinutes(), 0);
    assert.equal(next.getHours() % 6, 0);
    scheduler.reschedule('30 2 * * *');
    assert.equal(scheduler.health().schedule, '30 2 * * *');
    assert.equal(new Date(scheduler.health().nextRunAt ?? '').getMinutes(), 30);
  } finally {
    scheduler.stop();
  }
});

test('/healthz reports the last sweep, and a sweep that finds the lock taken is reported as locked', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const nowMs = Date.now();
  await seedFile(env.sandboxRoot, 'c1/results/0001-q.jsonl', 9, nowMs);
  const retention = startRetention(env.host);
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const healthUrl = front.url.replace('/mcp', '/healthz');

  const before = (await (await fetch(healthUrl)).json()) as { retention: { lastSweep: unknown; schedule: string; nextRunAt: string } };
  assert.equal(before.retention.lastSweep, null);
  assert.equal(before.retention.schedule, '0 */6 * * *');
  assert.ok(Date.parse(before.retention.nextRunAt) > nowMs);

  assert.equal((await retention.scheduler.runNow()).outcome, 'ok');
  const after = (await (await fetch(healthUrl)).json()) as { retention: { lastSweep: { outcome: string; deleted: { files: number } } } };
  assert.equal(after.retention.lastSweep.outcome, 'ok');
  assert.equal(after.retention.lastSweep.deleted.files, 1);

  const lock = await acquireSweepLock(env.sandboxRoot);
  try {
    const outcome = await retention.scheduler.runNow();
    assert.equal(outcome.outcome, 'locked');
  } finally {
    await lock.release();
  }
  const locked = (await (await fetch(healthUrl)).json()) as { retention: { lastSweep: { outcome: string; message: string } } };
  assert.equal(locked.retention.lastSweep.outcome, 'locked');
  assert.match(locked.retention.lastSweep.message, /Another retention sweep/);
});

test('startRuntime runs the retention service and the watchers, and stops them with the host', async (t) => {
  const { config, dir } = await tempConfig();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const runtime = await startRuntime({ config, logger: silentLogger() });
  const health = runtime.host.health() as { retention?: { schedule: string; quota: { maxBytes: number } } };
  assert.equal(health.retention?.schedule, config.retention.cron);
  assert.equal(health.retention?.quota.maxBytes, 0);
  // The outputs watcher is running: a file dropped into a conversation's outputs/ is announced as an attachment.
  const announced = new Promise<{ conversationId: string; attachment: { path: string } }>((resolve) => runtime.host.once('attachment', resolve));
  await seedFile(config.sandbox.root, 'c/outputs/dropped.csv', 0, Date.now(), 'a,b\n1,2\n');
  const event = await announced;
  assert.equal(event.conversationId, 'c');
  assert.equal(event.attachment.path, 'outputs/dropped.csv');
  await runtime.stop();
});
