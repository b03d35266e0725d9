import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createHost } from '../../src/runtime/create-host.js';
import { redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { seedFile, tempSandbox } from '../retention/seed-sandbox.js';

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the fleet cleanup test: ${skip}`);

test('spillway cleanup in a fleet records what it removed in Redis, so every replica answers PATH_EXPIRED for it', { skip }, async (t) => {
  const redis = await startRedis(t);
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  await seedFile(root, 'a/results/0001-q.jsonl', 9, Date.now(), '{"id":1}\n');
  const settings = { sandbox: { root }, log: { level: 'silent' }, coordination: { redis: { url: redis.url, keyPrefix: 'cleanup-fleet:' } } };
  const file = path.join(path.dirname(root), 'config.json');
  await writeFile(file, JSON.stringify(settings));
  const io = { out: () => undefined, err: () => undefined, interactive: false };
  assert.equal(await main(['cleanup', '--config', file], io), 0);
  const conversation = path.join(root, 'local', 'a');
  assert.deepEqual(await readdir(path.join(conversation, 'results')).catch(() => []), [], 'the old spill is gone');
  assert.ok(!(await readdir(conversation).catch(() => [] as string[])).includes('.expired.jsonl'), 'recorded in Redis, not in the file log');

  const host = await createHost({ config: loadConfig({ env: {}, overrides: { ...settings, data: { dir: path.join(path.dirname(root), 'data') } } }) });
  t.after(() => host.close());
  const read = await host.execute({ name: 'read_file', arguments: { path: 'results/0001-q.jsonl' } }, { conversationId: 'a' });
  assert.equal(read.error?.code, 'PATH_EXPIRED', read.text);
});
