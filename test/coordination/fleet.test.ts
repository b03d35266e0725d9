import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Redis } from 'ioredis';
import { RedisCoordinator } from '../../src/coordination/redis-coordinator.js';
import { defineTool } from '../../src/host/define-tool.js';
import type { Host } from '../../src/host/host.js';
import { leaseSweepLock, sweepLockKey } from '../../src/retention/lease-sweep-lock.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { assembleHost } from '../../src/runtime/create-host.js';
import { packageRoot } from '../../src/config/package-root.js';
import { spawnChild } from '../helpers/child-process.js';
import { redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { makeRows, tempConfig } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the fleet coordination tests: ${skip}`);

const rowsTool = defineTool({
  name: 'rows',
  description: 'Returns n rows.',
  inputSchema: Type.Object({ n: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  handler: async (args) => ({ value: makeRows(args.n) }),
});

/** Two replicas: hosts with one sandbox folder and one Redis, each with its own coordinator connection. */
async function twoReplicas(
  t: { after(fn: () => Promise<void> | void): void },
  url: string,
  keyPrefix: string,
): Promise<{ hosts: Host[]; sandboxRoot: string }> {
  const { config, dir } = await tempConfig({ coordination: { redis: { url, keyPrefix } } });
  const hosts: Host[] = [];
  for (let i = 0; i < 2; i += 1) {
    const { host } = await assembleHost({ config, builtins: false });
    host.registerTool(rowsTool);
    t.after(() => host.close());
    hosts.push(host);
  }
  t.after(() => rm(dir, { recursive: true, force: true }));
  return { hosts, sandboxRoot: hosts[0]?.sandbox.root ?? '' };
}

test('two replicas sharing one sandbox folder and one Redis number their spills in a conversation without a duplicate', { skip }, async (t) => {
  const redis = await startRedis(t);
  const { hosts } = await twoReplicas(t, redis.url, 'fleet-a:');
  const calls = 40;
  const results = await Promise.all(
    Array.from({ length: calls }, (_, i) => (hosts[i % 2] as Host).execute({ name: 'rows', arguments: { n: 30 + i } }, { conversationId: 'shared' })),
  );
  const numbers = results.map((result) => {
    assert.ok(result.spill !== undefined, result.text);
    return Number(/results\/(\d+)-/.exec(result.spill.path)?.[1]);
  });
  assert.equal(new Set(numbers).size, calls, `distinct numbers: ${numbers.join(', ')}`);
  assert.deepEqual(
    [...numbers].sort((a, b) => a - b),
    Array.from({ length: calls }, (_, i) => i + 1),
  );
  const files = (await readdir(path.join(hosts[0]!.sandbox.conversation('shared').dir, 'results'))).filter((name) => !name.endsWith('.meta.json'));
  assert.equal(files.length, calls, 'every spill is on disk under its own name');
});

test('spill numbers continue after the files already in the folder when Redis has no counter yet', { skip }, async (t) => {
  const redis = await startRedis(t);
  const { hosts } = await twoReplicas(t, redis.url, 'fleet-b:');
  const first = await hosts[0]?.execute({ name: 'rows', arguments: { n: 50 } }, { conversationId: 'c' });
  assert.equal(first?.spill?.path, 'results/0001-rows.jsonl');
  const probe = new Redis(redis.url);
  t.after(() => probe.disconnect());
  // Redis loses its data (a restart without persistence): numbering goes on from the files.
  await probe.flushall();
  const second = await hosts[1]?.execute({ name: 'rows', arguments: { n: 50 } }, { conversationId: 'c' });
  assert.equal(second?.spill?.path, 'results/0002-rows.jsonl');
});

test('two sweeps at once on a fleet: exactly one runs, the other is told the lock is held', { skip }, async (t) => {
  const redis = await startRedis(t);
  const { hosts, sandboxRoot } = await twoReplicas(t, redis.url, 'fleet-c:');
  await hosts[0]?.execute({ name: 'rows', arguments: { n: 50 } }, { conversationId: 'c' });
  const coordinators = [
    await RedisCoordinator.connect({ url: redis.url, keyPrefix: 'fleet-c:' }),
    await RedisCoordinator.connect({ url: redis.url, keyPrefix: 'fleet-c:' }),
  ];
  t.after(() => Promise.all(coordinators.map((coordinator) => coordinator.close())));
  let letFirstFinish!: () => void;
  const firstMayFinish = new Promise<void>((resolve) => (letFirstFinish = resolve));
  let firstPlanned!: () => void;
  const firstIsSweeping = new Promise<void>((resolve) => (firstPlanned = resolve));
  const sweep = (index: number, onPlanned?: () => Promise<void>) =>
    sweepSandbox({
      root: sandboxRoot,
      olderThanMs: 86_400_000,
      lock: leaseSweepLock(coordinators[index] as RedisCoordinator),
      ...(onPlanned ? { onPlanned } : {}),
    });
  const first = sweep(0, async () => {
    firstPlanned();
    await firstMayFinish;
  });
  await firstIsSweeping;
  const second = await sweep(1).then(
    () => 'ran',
    (error: { code?: string }) => error.code,
  );
  assert.equal(second, 'RETENTION_LOCKED');
  letFirstFinish();
  assert.equal((await first).conversations, 1);
  // Released: a later sweep runs.
  assert.equal((await sweep(1)).conversations, 1);
});

test('a sweep lock holder that is killed keeps the lock only until its lease runs out; then the next sweep takes it', { skip }, async (t) => {
  const redis = await startRedis(t);
  const keyPrefix = 'fleet-d:';
  const holder = spawnChild(t, process.execPath, [path.join(packageRoot, 'dist/test/fixtures/hold-sweep-lock.js'), redis.url, keyPrefix, '900'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve();
    });
    holder.once('exit', (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
  });
  const coordinator = await RedisCoordinator.connect({ url: redis.url, keyPrefix });
  t.after(() => coordinator.close());
  const take = leaseSweepLock(coordinator, { leaseMs: 60_000 });
  await assert.rejects(take('/fleet-sandbox'), { code: 'RETENTION_LOCKED' });

  holder.kill('SIGKILL');
  const probe = new Redis(redis.url);
  t.after(() => probe.disconnect());
  // Nothing renews the lease now: Redis drops the key when it runs out.
  await waitFor(async () => (await probe.exists(keyPrefix + sweepLockKey)) === 0, "the killed holder's lease to run out");
  const lock = await take('/fleet-sandbox');
  await lock.release();
});

test(
  'Redis gone mid-run: calls fail with COORDINATION_UNAVAILABLE (retryable) before running, nothing is written; /healthz would say so',
  { skip },
  async (t) => {
    const redis = await startRedis(t);
    const { hosts } = await twoReplicas(t, redis.url, 'fleet-e:');
    const host = hosts[0] as Host;
    let ran = 0;
    host.registerTool(
      defineTool({
        name: 'counted',
        description: 'Counts its runs.',
        inputSchema: Type.Object({}, { additionalProperties: false }),
        handler: async () => {
          ran += 1;
          return { value: makeRows(50) };
        },
      }),
    );
    assert.equal((await host.execute({ name: 'counted', arguments: {} }, { conversationId: 'c' })).isError, false);
    assert.equal(ran, 1);
    await redis.kill();
    await waitFor(
      () => host.health().coordination !== undefined && (host.health().coordination as { connected: boolean }).connected === false,
      'the host to see Redis gone',
    );
    const refused = await host.execute({ name: 'counted', arguments: {} }, { conversationId: 'c' });
    assert.equal(refused.isError, true);
    assert.equal(refused.error?.code, 'COORDINATION_UNAVAILABLE');
    assert.equal(refused.error?.details?.retryable, true);
    assert.equal(ran, 1, 'the tool did not run');
    const check = host.listHealthChecks().find(([name]) => name === 'coordination');
    assert.ok(check !== undefined);
    await assert.rejects(check[1](), { code: 'COORDINATION_UNAVAILABLE' });
    const files = (await readdir(path.join(hosts[0]!.sandbox.conversation('c').dir, 'results'))).filter((name) => !name.endsWith('.meta.json'));
    assert.equal(files.length, 1, "only the first call's spill");
  },
);
