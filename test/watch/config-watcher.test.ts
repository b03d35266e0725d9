import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import { createHost } from '../../src/runtime/create-host.js';
import { silentLogger } from '../../src/log/logger.js';
import { startRuntime } from '../../src/runtime/start-runtime.js';
import { watchConfig, type ConfigWatcherEvents } from '../../src/watch/config-watcher.js';
import { waitFor } from '../helpers/wait-for.js';

async function configFolder(t: { after(fn: () => Promise<void>): void }) {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-config-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'spillway.json');
  const base = { sandbox: { root: 'sandbox' }, data: { dir: 'data' }, log: { level: 'silent' } };
  const write = (extra: object) => writeFile(file, JSON.stringify({ ...base, ...extra }, null, 2));
  await write({});
  return { dir, file, write };
}

test('a valid change to the config file is applied without a restart; an invalid one is logged and ignored', async (t) => {
  const { file, write } = await configFolder(t);
  const host = await createHost({ config: loadConfig({ file, env: {} }), logger: silentLogger() });
  t.after(() => host.close());
  host.registerTool({ name: 'medium', description: 'medium', inputSchema: { type: 'object' }, handler: () => ({ value: 'z'.repeat(300) }) });
  const watcher = watchConfig(host, { file, debounceMs: 50 });
  t.after(() => watcher.close());
  await watcher.ready;

  const before = await host.execute({ name: 'medium', arguments: {} }, { conversationId: 'c1' });
  assert.equal(before.spill, undefined, '300 characters stay inline under the default 1,000');

  const applied = once(watcher, 'applied') as Promise<ConfigWatcherEvents['applied']>;
  await write({ spill: { thresholdChars: 100, tools: {} }, policy: { default: 'allow', upstreamDefault: 'deny', rules: { 'danger_*': 'deny' } } });
  const [event] = await applied;
  assert.deepEqual(event.changed.sort(), ['policy', 'spill']);
  assert.equal(host.config.spill.thresholdChars, 100);
  const after = await host.execute({ name: 'medium', arguments: {} }, { conversationId: 'c1' });
  assert.ok(after.spill !== undefined, 'now it spills');
  assert.equal(host.config.policy.rules['danger_*'], 'deny');

  for (const [bad, key] of [
    [{ retention: { days: 0, cron: '0 */6 * * *', maxBytes: 0, maxBytesPerConversation: 0 } }, /retention\.days/],
    [{ retention: { days: 7, cron: 'every six hours', maxBytes: 0, maxBytesPerConversation: 0 } }, /retention\.cron/],
  ] as const) {
    const rejected = once(watcher, 'rejected') as Promise<ConfigWatcherEvents['rejected']>;
    await write(bad);
    const [problem] = await rejected;
    assert.match(problem.message, key);
    assert.equal(host.config.spill.thresholdChars, 100, 'the running configuration stays');
    assert.equal(host.config.retention.days, 7);
  }
  const notJson = once(watcher, 'rejected') as Promise<ConfigWatcherEvents['rejected']>;
  await writeFile(file, '{ "spill": ');
  assert.match((await notJson)[0].message, /not valid JSON/);
  assert.equal(host.config.spill.thresholdChars, 100);
});

test('keys that need a restart keep their running values; a save by rename is seen', async (t) => {
  const { dir, file } = await configFolder(t);
  const host = await createHost({ config: loadConfig({ file, env: {} }), logger: silentLogger() });
  t.after(() => host.close());
  const watcher = watchConfig(host, { file, debounceMs: 50 });
  t.after(() => watcher.close());
  await watcher.ready;
  const root = host.config.sandbox.root;
  const applied = once(watcher, 'applied') as Promise<ConfigWatcherEvents['applied']>;
  // Editors save by writing a new file and renaming it over the old one.
  const temp = path.join(dir, '.spillway.json.swp');
  await writeFile(
    temp,
    JSON.stringify({
      sandbox: { root: 'elsewhere' },
      data: { dir: 'data' },
      log: { level: 'silent' },
      reread: { maxLines: 42, maxChars: 40000, maxLineChars: 2000, maxMatches: 200, maxListEntries: 500 },
    }),
  );
  await rename(temp, file);
  const [event] = await applied;
  assert.deepEqual(event.needsRestart, ['sandbox']);
  assert.deepEqual(event.changed, ['reread']);
  assert.equal(host.config.sandbox.root, root);
  assert.equal(host.config.reread.maxLines, 42);
});

test('serve reloads retention.cron from its config file: the schedule in /healthz changes', async (t) => {
  const { file, write } = await configFolder(t);
  const runtime = await startRuntime({ configFile: file, logger: silentLogger() });
  t.after(() => runtime.stop());
  const schedule = () => (runtime.host.health() as { retention: { schedule: string } }).retention.schedule;
  assert.equal(schedule(), '0 */6 * * *');
  await write({ retention: { days: 3, cron: '15 */2 * * *', maxBytes: 0, maxBytesPerConversation: 0 } });
  // The runtime's watcher applies the file when it notices it; no event reaches this test, so check until it has.
  await waitFor(() => schedule() === '15 */2 * * *', 'the reloaded retention.cron');
  assert.equal(schedule(), '15 */2 * * *');
  assert.equal(runtime.host.config.retention.days, 3);
});
