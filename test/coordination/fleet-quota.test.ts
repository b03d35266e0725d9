import assert from 'node:assert/strict';
import { readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { Host } from '../../src/host/host.js';
import { measureConversation } from '../../src/retention/disk-usage.js';
import type { ExpiryLog } from '../../src/retention/expired-log.js';
import { SweepFolders } from '../../src/retention/sweep-folders.js';
import { assembleHost, type AssembledHost } from '../../src/runtime/create-host.js';
import { startRuntime } from '../../src/runtime/start-runtime.js';
import { redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { tempConfig } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';
import { capturedLogger } from '../helpers/captured-logger.js';

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the fleet quota tests: ${skip}`);

const kib = (n: number) => 'x'.repeat(n * 1024);
const limit = 40 * 1024;

/** Two replicas (hosts over one sandbox folder and one Redis) with a per-conversation quota and a `blob` tool writing 10 KiB. */
async function twoReplicas(t: { after(fn: () => Promise<void> | void): void }, url: string, keyPrefix: string): Promise<AssembledHost[]> {
  const { config, dir } = await tempConfig({
    coordination: { redis: { url, keyPrefix } },
    retention: { maxBytes: 0, maxBytesPerConversation: limit },
  });
  const replicas: AssembledHost[] = [];
  for (let i = 0; i < 2; i += 1) {
    const replica = await assembleHost({ config, builtins: true });
    let calls = 0;
    replica.host.registerTool({
      name: 'blob',
      description: 'blob',
      inputSchema: { type: 'object' },
      handler: () => ({ value: `${i}-${(calls += 1)}:${kib(10)}` }),
    });
    t.after(() => replica.host.close());
    replicas.push(replica);
  }
  t.after(() => rm(dir, { recursive: true, force: true }));
  return replicas;
}

/** A 5 KiB attachment in the conversation's outputs/, older than every spill. */
async function seedOutput(host: Host, conversationId: string): Promise<string> {
  const sandbox = host.sandbox.conversation(conversationId);
  await sandbox.ensure();
  const file = path.join(sandbox.dir, 'outputs', 'kept.csv');
  await writeFile(file, kib(5));
  const old = new Date(Date.now() - 30 * 86_400_000);
  await utimes(file, old, old);
  return file;
}

async function readCode(host: Host, conversationId: string, relative: string): Promise<string | undefined> {
  const read = await host.execute({ name: 'read_file', arguments: { path: relative } }, { conversationId });
  return read.isError ? read.error?.code : 'OPENS';
}

test('two replicas spilling in turn into one conversation keep it under maxBytesPerConversation fleet-wide', { skip }, async (t) => {
  const redis = await startRedis(t);
  const replicas = await twoReplicas(t, redis.url, 'quota-a:');
  const hosts = replicas.map((replica) => replica.host);
  const output = await seedOutput(hosts[0] as Host, 'c');
  const spills: string[] = [];
  for (let i = 0; i < 8; i += 1) {
    const result = await (hosts[i % 2] as Host).execute({ name: 'blob', arguments: {} }, { conversationId: 'c' });
    assert.ok(result.spill !== undefined, result.text);
    spills.push(result.spill.path);
  }
  const dir = (hosts[0] as Host).sandbox.conversation('c').dir;
  const usage = await measureConversation(path.dirname(path.dirname(dir)), (hosts[0] as Host).sandbox.conversation('c').key, {
    withFiles: false,
    nowMs: Date.now(),
  });
  assert.ok(usage.bytes <= limit, `the conversation holds ${usage.bytes} bytes, the limit is ${limit}`);
  const left = (await readdir(path.join(dir, 'results'))).filter((name) => !name.endsWith('.meta.json')).sort();
  assert.deepEqual(
    left,
    spills
      .slice(-3)
      .map((spill) => path.basename(spill))
      .sort(),
    'the three newest spills are left; the oldest went',
  );
  await stat(output);
  assert.ok(
    replicas.every((replica) => replica.quota.stats().evicted.files > 0),
    'both replicas evicted: each saw the other one’s spills',
  );
  for (const [index, spill] of spills.slice(0, -3).entries()) {
    assert.equal(await readCode(hosts[(index + 1) % 2] as Host, 'c', spill), 'PATH_EXPIRED', `${spill} answers PATH_EXPIRED on either replica`);
  }
  await assert.rejects(stat(path.join(dir, '.expired.jsonl')), 'a fleet records expiries in Redis, not in the file');
});

test(
  'two replicas spilling at once: afterwards the conversation fits, outputs and the newest spill stay, every spill opens or answers PATH_EXPIRED',
  { skip },
  async (t) => {
    const redis = await startRedis(t);
    const replicas = await twoReplicas(t, redis.url, 'quota-b:');
    const hosts = replicas.map((replica) => replica.host);
    const output = await seedOutput(hosts[0] as Host, 'c');
    const together = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (hosts[i % 2] as Host).execute({ name: 'blob', arguments: {} }, { conversationId: 'c' })),
    );
    const last = await (hosts[0] as Host).execute({ name: 'blob', arguments: {} }, { conversationId: 'c' });
    const spills = [...together, last].map((result) => result.spill?.path ?? 'missing');
    const sandbox = (hosts[1] as Host).sandbox.conversation('c');
    const usage = await measureConversation(sandbox.root, sandbox.key, { withFiles: false, nowMs: Date.now() });
    assert.ok(usage.bytes <= limit, `the conversation holds ${usage.bytes} bytes, the limit is ${limit}`);
    await stat(output);
    await stat(path.join(sandbox.dir, last.spill?.path ?? 'missing'));
    const codes = await Promise.all(spills.map((spill, i) => readCode(hosts[i % 2] as Host, 'c', spill)));
    assert.ok(
      codes.every((code) => code === 'OPENS' || code === 'PATH_EXPIRED'),
      codes.join(', '),
    );
    assert.ok(codes.filter((code) => code === 'PATH_EXPIRED').length >= 9, `the limit made room: ${codes.join(', ')}`);
  },
);

test('expiry entries recorded by two replicas at once are all found afterwards (PATH_EXPIRED for each)', { skip }, async (t) => {
  const redis = await startRedis(t);
  const replicas = await twoReplicas(t, redis.url, 'quota-c:');
  const sandbox = replicas[0]?.host.sandbox.conversation('c');
  assert.ok(sandbox !== undefined);
  await sandbox.ensure();
  const logs = replicas.map((replica) => replica.expiryLog as ExpiryLog);
  const now = new Date();
  const batches = Array.from({ length: 40 }, (_, batch) =>
    Array.from({ length: 5 }, (_, i) => ({ path: `results/${String(batch * 5 + i + 1).padStart(4, '0')}-gone.jsonl`, expiredAt: now.toISOString() })),
  );
  const folders = new SweepFolders(sandbox.dir);
  t.after(() => folders.closeAll());
  await Promise.all(
    batches.map((entries, batch) => (logs[batch % 2] as ExpiryLog).record({ conversationId: sandbox.key, folders, entries, now, keepMs: 30 * 86_400_000 })),
  );
  const paths = batches.flat().map((entry) => entry.path);
  const codes = await Promise.all(paths.map((relative, i) => readCode(replicas[i % 2]?.host as Host, 'c', relative)));
  assert.deepEqual(
    codes.filter((code) => code !== 'PATH_EXPIRED'),
    [],
    'every recorded path answers PATH_EXPIRED',
  );
  const read = await replicas[1]?.host.execute({ name: 'read_file', arguments: { path: paths[7] } }, { conversationId: 'c' });
  assert.equal(read?.error?.details?.expiredAt, now.toISOString());
});

test('Redis killed mid-run: a spill still succeeds and returns, the quota warning is logged and /healthz shows the skipped check', { skip }, async (t) => {
  const redis = await startRedis(t);
  const { config, dir } = await tempConfig({
    coordination: { redis: { url: redis.url, keyPrefix: 'quota-d:' } },
    retention: { maxBytes: 0, maxBytesPerConversation: limit },
  });
  const { logger, lines } = capturedLogger();
  const runtime = await startRuntime({ config, logger });
  t.after(() => runtime.stop());
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { host } = runtime;
  host.registerTool({ name: 'blob', description: 'blob', inputSchema: { type: 'object' }, handler: () => ({ value: kib(10) }) });
  assert.ok((await host.execute({ name: 'blob', arguments: {} }, { conversationId: 'c' })).spill !== undefined);

  await redis.kill();
  await waitFor(() => (host.health().coordination as { connected: boolean }).connected === false, 'the host to see Redis gone');
  // A spill that needs no spill number from Redis (the context guard's): it is written, the quota check is skipped.
  const spill = await host.spillValue({ conversationId: 'c', tool: 'blob', callId: 'after-redis', value: kib(10) });
  assert.ok(spill !== undefined, 'the spill was written');
  await stat(path.join(host.sandbox.conversation('c').dir, spill.path));
  assert.ok(
    lines.some((line) => line.level === 40 && line.msg.startsWith('disk quota: the coordination store cannot be reached')),
    'the quota warning was logged',
  );
  const quota = (host.health() as { retention: { quota: { shared: { available: boolean; skippedChecks: number } } } }).retention.quota;
  assert.equal(quota.shared.available, false);
  assert.equal(quota.shared.skippedChecks, 1);
});
