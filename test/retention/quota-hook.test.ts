import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { silentLogger } from '../../src/log/logger.js';
import { startRuntime } from '../../src/runtime/start-runtime.js';
import { tempConfig } from '../helpers/temp-host.js';

const kib = (n: number) => 'x'.repeat(n * 1024);

test('a server has one disk-quota guard: the one on its spills is the one /healthz reports', async (t) => {
  const { config, dir } = await tempConfig({ retention: { days: 7, cron: '0 */6 * * *', maxBytes: 0, maxBytesPerConversation: 25 * 1024 } });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const runtime = await startRuntime({ config, logger: silentLogger() });
  t.after(() => runtime.stop());
  runtime.host.registerTool({ name: 'blob', description: 'blob', inputSchema: { type: 'object' }, handler: () => ({ value: kib(10) }) });
  for (let i = 0; i < 4; i += 1) await runtime.host.execute({ name: 'blob', arguments: {} }, { conversationId: 'c1' });
  const quota = () =>
    (runtime.host.health() as { retention: { quota: { maxBytesPerConversation: number; evicted: { files: number }; bytes?: number } } }).retention.quota;
  assert.equal(quota().maxBytesPerConversation, 25 * 1024);
  assert.ok(quota().evicted.files >= 2, `the spills' guard evicted and /healthz shows it: ${JSON.stringify(quota())}`);
  assert.ok(quota().bytes !== undefined, 'the guard keeps a running total');
});
