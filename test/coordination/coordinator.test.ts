import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import type { Coordinator } from '../../src/coordination/coordinator.js';
import { MemoryCoordinator } from '../../src/coordination/memory-coordinator.js';
import { openCoordinator } from '../../src/coordination/open-coordinator.js';
import { RedisCoordinator } from '../../src/coordination/redis-coordinator.js';
import { redactUrl } from '../../src/util/redact-url.js';
import { spillNumberKey } from '../../src/coordination/shared-spill-numbers.js';
import { StoreClock } from '../../src/coordination/store-clock.js';
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

  test(`${name}: counters in hashes add atomically to several hashes at once, and a replacement adds what came meanwhile`, { skip }, async (t) => {
    const { coordinator, other } = await open(t);
    assert.deepEqual(await coordinator.addCounts(['totals', 'since'], { all: 100, 'a/c1': 100 }), { all: 100, 'a/c1': 100 });
    assert.deepEqual(await other.addCounts(['totals', 'since'], { all: 50, 'a/c2': 50 }), { all: 150, 'a/c2': 50 });
    assert.deepEqual(await other.addCounts(['totals'], { all: -30, 'a/c1': -30 }), { all: 120, 'a/c1': 70 }, 'negative amounts subtract');
    assert.deepEqual(await coordinator.readCounts('since'), { all: 150, 'a/c1': 100, 'a/c2': 50 });
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? coordinator : other).addCounts(['n'], { x: 1 })));
    assert.deepEqual(
      many.map((values) => values.x).sort((a, b) => (a ?? 0) - (b ?? 0)),
      Array.from({ length: 40 }, (_, i) => i + 1),
      'every add sees its own new value',
    );
    await coordinator.replaceCounts('totals', { all: 1_000, 'a/c3': 1_000 }, { plusFrom: 'since' });
    assert.deepEqual(await other.readCounts('totals'), { all: 1_150, 'a/c1': 100, 'a/c2': 50, 'a/c3': 1_000 });
    await other.replaceCounts('since', {});
    assert.deepEqual(await coordinator.readCounts('since'), {}, 'replaced by nothing: empty');
    await coordinator.replaceCounts('totals', { all: 7 });
    assert.deepEqual(await coordinator.readCounts('totals'), { all: 7 }, 'without plusFrom, exactly the values');
    assert.deepEqual(await coordinator.readCounts('missing'), {});
  });

  test(`${name}: a conditional add changes the counters only while the guard field still holds what the caller read`, { skip }, async (t) => {
    const { coordinator, other } = await open(t);
    await coordinator.replaceCounts('totals', { all: 100, 'a/c': 60, measuredAt: 7 });
    assert.equal(await other.addCountsIf('totals', { all: -10, 'a/c': -10 }, { field: 'measuredAt', equals: 7 }), true);
    assert.deepEqual(await coordinator.readCounts('totals'), { all: 90, 'a/c': 50, measuredAt: 7 });
    await other.replaceCounts('totals', { all: 80, 'a/c': 40, measuredAt: 8 });
    assert.equal(await coordinator.addCountsIf('totals', { all: -10, 'a/c': -10 }, { field: 'measuredAt', equals: 7 }), false, 'replaced since: nothing added');
    assert.deepEqual(await other.readCounts('totals'), { all: 80, 'a/c': 40, measuredAt: 8 });
    assert.equal(await coordinator.addCountsIf('missing', { x: 1 }, { field: 'measuredAt', equals: 0 }), true, 'a missing field counts as 0');
    assert.deepEqual(await other.readCounts('missing'), { x: 1 });
  });

  test(`${name}: the store has one clock for all its clients: a later read is never earlier, whoever reads`, { skip }, async (t) => {
    const { coordinator, other } = await open(t);
    const first = await coordinator.timeMs();
    const second = await other.timeMs();
    const third = await coordinator.timeMs();
    assert.ok(Number.isInteger(first) && first >= 0, String(first));
    assert.ok(first <= second && second <= third, `${first} <= ${second} <= ${third}`);
  });

  test(`${name}: a sorted set keeps the latest score per member and drops the members below the horizon`, { skip }, async (t) => {
    const { coordinator, other, expire } = await open(t);
    await coordinator.addScores('expired', { 'results/0001-a.jsonl': 1_000, 'results/0002-b.jsonl': 2_000 }, { dropBelow: 0, ttlMs: 60_000 });
    await other.addScores('expired', { 'results/0003-c.jsonl': 3_000, 'results/0001-a.jsonl': 2_500 }, { dropBelow: 0, ttlMs: 60_000 });
    assert.equal(await coordinator.readScore('expired', 'results/0001-a.jsonl'), 2_500, 'the later record wins');
    assert.equal(await other.readScore('expired', 'results/0002-b.jsonl'), 2_000);
    assert.equal(await other.readScore('expired', 'results/nothing'), undefined);
    await coordinator.addScores('expired', { 'results/0004-d.jsonl': 4_000 }, { dropBelow: 2_600, ttlMs: 60_000 });
    assert.equal(await other.readScore('expired', 'results/0001-a.jsonl'), undefined, 'older than the horizon: forgotten');
    assert.equal(await other.readScore('expired', 'results/0002-b.jsonl'), undefined);
    assert.equal(await other.readScore('expired', 'results/0003-c.jsonl'), 3_000);
    assert.equal(await other.readScore('expired', 'results/0004-d.jsonl'), 4_000);
    await other.addScores('short-lived', { 'results/0005-e.jsonl': 5_000 }, { dropBelow: 0, ttlMs: 300 });
    await expire('short-lived');
    assert.equal(await coordinator.readScore('short-lived', 'results/0005-e.jsonl'), undefined, 'the whole set expires ttlMs after its last write');
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

test("a node's StoreClock reads the store's time, however far its own clock is off, and asks again only after refreshMs", async () => {
  let storeMs = 1_000_000;
  let localMs = storeMs - 7 * 60_000;
  let reads = 0;
  const store = {
    timeMs: () => {
      reads += 1;
      // The answer takes 20 ms on the node's clock; the store answered in the middle.
      localMs += 10;
      const answer = storeMs + 10;
      localMs += 10;
      return Promise.resolve(answer);
    },
  };
  const clock = new StoreClock(store, () => localMs, 60_000);
  assert.equal(clock.nowMs(), localMs, 'before the first read: the local clock');
  await clock.sync();
  assert.equal(clock.nowMs(), storeMs + 20, "the store's time (its answer plus the half round trip since)");
  await Promise.all([clock.sync(), clock.sync()]);
  assert.equal(reads, 1, 'within refreshMs: no round trip');
  localMs += 60_000;
  storeMs += 60_000 + 5_000; // the node's clock drifted 5 s meanwhile
  await Promise.all([clock.sync(), clock.sync()]);
  assert.equal(reads, 2, 'due again: one read for concurrent syncs');
  assert.equal(clock.nowMs(), storeMs + 20);
});

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
  assert.equal(config.coordination.redis, undefined);
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
