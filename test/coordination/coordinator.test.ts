import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import type { Coordinator } from '../../src/coordination/coordinator.js';
import { MemoryCoordinator } from '../../src/coordination/memory-coordinator.js';
import { openCoordinator } from '../../src/coordination/open-coordinator.js';
import { RedisCoordinator, redactUrl } from '../../src/coordination/redis-coordinator.js';
import { spillNumberKey } from '../../src/coordination/shared-spill-numbers.js';
import { loadConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/log/logger.js';
import { freePort, redisUnavailableReason, startRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const noRedis = redisUnavailableReason();
if (noRedis !== undefined) console.log(`# skipping the Redis coordinator tests: ${noRedis}`);

/** The contract both coordinators keep; `expire` makes a lease run out (a clock for memory, polling the key for Redis). */
function contract(
  name: string,
  open: (t: TestContext) => Promise<{ coordinator: Coordinator; other: Coordinator; expire: (key: string) => Promise<void> }>,
  skip?: string,
) {
  test(`${name}: a lock is held by one taker; only its own token releases or renews it; an expired lease can be taken`, { skip }, async (t) => {
    const { coordinator, other, expire } = await open(t);
    const first = await coordinator.tryLock('lock', 300);
    assert.ok(first !== undefined);
    assert.equal(await other.tryLock('lock', 300), undefined, 'held: nobody else gets it');
    assert.equal(await first.renew(300), true);
    await expire('lock');
    const second = await other.tryLock('lock', 60_000);
    assert.ok(second !== undefined, 'the lease ran out: the next taker gets it');
    assert.equal(await first.renew(60_000), false, 'the old holder cannot renew a lock it lost');
    await first.release();
    assert.equal(await coordinator.tryLock('lock', 60_000), undefined, 'the old holder did not remove its successor');
    await second.release();
    assert.ok(await coordinator.tryLock('lock', 60_000), 'released: free again');
  });

  test(`${name}: a counter is atomic and continues from a floor`, { skip }, async (t) => {
    const { coordinator, other } = await open(t);
    assert.equal(await coordinator.increment('n'), 1);
    assert.equal(await other.increment('n'), 2);
    assert.equal(await coordinator.increment('n', 40), 41, 'behind the floor: continues after it');
    assert.equal(await other.increment('n', 3), 42, 'a lower floor changes nothing');
    const values = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? coordinator : other).increment('m')));
    assert.deepEqual(
      [...values].sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  test(`${name}: a log keeps its entries in order`, { skip }, async (t) => {
    const { coordinator, other } = await open(t);
    await coordinator.append('log', 'a');
    await other.append('log', 'b');
    assert.deepEqual(await other.readLog('log'), ['a', 'b']);
    assert.deepEqual(await coordinator.readLog('empty'), []);
  });
}

contract('memory', async () => {
  let now = 0;
  const coordinator = new MemoryCoordinator(() => now);
  return {
    coordinator,
    other: coordinator,
    expire: async () => {
      now += 1_000;
    },
  };
});

contract(
  'redis',
  async (t) => {
    const redis = await startRedis(t);
    const keyPrefix = `test-${process.pid}:`;
    const coordinator = await RedisCoordinator.connect({ url: redis.url, keyPrefix });
    const other = await RedisCoordinator.connect({ url: redis.url, keyPrefix });
    const probe = new Redis(redis.url);
    t.after(async () => {
      probe.disconnect();
      await coordinator.close();
      await other.close();
    });
    // The lease runs out on the server: poll the key until Redis has expired it.
    return { coordinator, other, expire: (key) => waitFor(async () => (await probe.exists(keyPrefix + key)) === 0, `Redis to expire ${key}`) };
  },
  noRedis,
);

test('Redis that cannot be reached at start: COORDINATION_UNAVAILABLE naming coordination.redis.url (password hidden)', async () => {
  const port = await freePort();
  const config = loadConfig({ env: {}, overrides: { coordination: { redis: { url: `redis://user:secret@127.0.0.1:${port}` } }, log: { level: 'silent' } } });
  await assert.rejects(openCoordinator(config, silentLogger()), (error: Error & { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(error.code, 'COORDINATION_UNAVAILABLE');
    assert.match(error.message, /coordination\.redis\.url/);
    assert.doesNotMatch(error.message, /secret/);
    assert.equal(error.details?.setting, 'coordination.redis.url');
    assert.equal(error.details?.retryable, true);
    return true;
  });
});

test('without coordination.redis there is no coordinator (single-process behaviour)', async () => {
  const config = loadConfig({ env: {}, overrides: { log: { level: 'silent' } } });
  assert.deepEqual(config.coordination, { sweepLeaseMs: 60_000 });
  assert.equal(await openCoordinator(config, silentLogger()), undefined);
});

test('coordination.redis.url must be a redis:// URL (the config error names the key)', () => {
  assert.throws(() => loadConfig({ env: {}, overrides: { coordination: { redis: { url: 'http://x' } } } }), /coordination\.redis\.url/);
});

test('spill counters are keyed by the conversation folder relative to the root, in either layout', () => {
  assert.equal(spillNumberKey('/srv/sandbox', '/srv/sandbox/c1'), 'spill-number:c1');
  assert.equal(spillNumberKey('/srv/sandbox', '/srv/sandbox/alice/c1'), 'spill-number:alice/c1');
  assert.throws(() => spillNumberKey('/srv/sandbox', '/srv/other/c1'), /not inside the sandbox root/);
  assert.equal(redactUrl('redis://:pw@h:1/0'), 'redis://:***@h:1/0');
});
