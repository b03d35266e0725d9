import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { MemoryCoordinator } from '../../src/coordination/memory-coordinator.js';
import { SpillwayError } from '../../src/errors.js';
import { DiskQuotaGuard } from '../../src/retention/disk-quota-guard.js';
import { measureConversation } from '../../src/retention/disk-usage.js';
import type { QuotaGuard } from '../../src/retention/quota-guard.js';
import { expiryKey, sharedExpiryLog } from '../../src/retention/shared-expiry-log.js';
import { SharedDiskQuotaGuard } from '../../src/retention/shared-quota-guard.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { waitFor } from '../helpers/wait-for.js';
import { at, day, principal, reported, seedFile, tempSandbox } from './seed-sandbox.js';
import { capturedLogger } from '../helpers/captured-logger.js';

const kib = (n: number) => 'x'.repeat(n * 1024);
const limits = { maxBytes: 0, maxBytesPerConversation: 40 * 1024 };
const conversation = `${principal}/c`;

/** A memory coordinator that can be switched off (every call fails as Redis down does) or made to never answer. */
class FlakyCoordinator extends MemoryCoordinator {
  mode: 'up' | 'down' | 'silent' = 'up';
  override addCounts(keys: readonly string[], by: Readonly<Record<string, number>>): Promise<Record<string, number>> {
    if (this.mode === 'down') return Promise.reject(new SpillwayError('COORDINATION_UNAVAILABLE', 'Redis is down (test)', { retryable: true }));
    if (this.mode === 'silent') return new Promise(() => undefined);
    return super.addCounts(keys, by);
  }
}

/**
 * Two replicas' guards spill in turn into conversation c (a 5 KiB output and six 10 KiB spills:
 * 65 KiB together, about 35 KiB each). Returns the spills' paths, oldest first.
 */
async function spillInTurns(root: string, guards: readonly QuotaGuard[], nowMs: number): Promise<string[]> {
  const { logger } = capturedLogger();
  await seedFile(root, 'c/outputs/kept.csv', 30, nowMs, kib(5));
  // Each replica has measured the sandbox before the turns begin (a spill elsewhere).
  for (const [index, guard] of guards.entries()) {
    const file = await seedFile(root, `prime${index}/results/0001-p.txt`, 1, nowMs, 'p');
    await guard.afterWrite({ conversationId: `${principal}/prime${index}`, written: [file], limits, retentionDays: 7, logger });
  }
  const spills: string[] = [];
  for (let i = 1; i <= 6; i += 1) {
    // Older spills have older modification times, a minute apart.
    const file = await seedFile(root, `c/results/000${i}-q.txt`, (10 - i) / 1440, nowMs, kib(10));
    spills.push(`results/000${i}-q.txt`);
    await guards[i % guards.length]?.afterWrite({ conversationId: conversation, written: [file], limits, retentionDays: 7, logger });
  }
  return spills;
}

test('two replicas sharing their totals keep a conversation under maxBytesPerConversation together; each alone would not', async (t) => {
  const nowMs = Date.now();
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new MemoryCoordinator();
  const expiryLog = sharedExpiryLog(coordinator);
  const guards = [0, 1].map(() => new SharedDiskQuotaGuard({ root, coordinator, expiryLog }));
  const spills = await spillInTurns(root, guards, nowMs);
  const usage = await measureConversation(root, conversation, { withFiles: false, nowMs });
  assert.ok(usage.bytes <= limits.maxBytesPerConversation, `the conversation holds ${usage.bytes} bytes`);
  assert.deepEqual((await readdir(at(root, 'c/results'))).sort(), ['0004-q.txt', '0005-q.txt', '0006-q.txt'], 'the oldest spills went');
  await stat(at(root, 'c/outputs/kept.csv'));
  assert.equal(
    guards.reduce((sum, guard) => sum + guard.stats().evicted.files, 0),
    3,
  );
  for (const spill of spills.slice(0, 3)) {
    assert.ok((await coordinator.readScore(expiryKey(conversation), spill)) !== undefined, `${spill} is in the shared expiry log`);
  }
  assert.deepEqual((await readdir(at(root, 'c'))).sort(), ['outputs', 'results'], 'no .expired.jsonl file');
  assert.equal((await coordinator.readCounts('quota:bytes'))[conversation], usage.bytes, 'the shared count matches the disk after the evictions');

  // The same turns with each replica counting only its own spills: nobody evicts, the limit is passed.
  const alone = await tempSandbox();
  t.after(alone.cleanup);
  const localGuards = [0, 1].map(() => new DiskQuotaGuard(alone.root));
  await spillInTurns(alone.root, localGuards, nowMs);
  const unshared = await measureConversation(alone.root, conversation, { withFiles: false, nowMs });
  assert.ok(unshared.bytes > limits.maxBytesPerConversation, `without shared totals the conversation holds ${unshared.bytes} bytes`);
  assert.equal(
    localGuards.reduce((sum, guard) => sum + guard.stats().evicted.files, 0),
    0,
  );
});

test('a replica that cannot take the conversation eviction lock skips its round: the holder is evicting', async (t) => {
  const nowMs = Date.now();
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new MemoryCoordinator();
  const guard = new SharedDiskQuotaGuard({ root, coordinator });
  const { logger } = capturedLogger();
  const files = [];
  for (let i = 1; i <= 5; i += 1) files.push(await seedFile(root, `c/results/000${i}-q.txt`, (10 - i) / 1440, nowMs, kib(10)));
  const held = await coordinator.tryLock(`quota:evict-lock:${conversation}`, 60_000);
  assert.ok(held !== undefined);
  await guard.afterWrite({ conversationId: conversation, written: [files[4] ?? ''], limits, retentionDays: 7, logger });
  assert.equal((await readdir(at(root, 'c/results'))).length, 5, 'nothing evicted while another replica holds the lock');
  await held.release();
  await guard.afterWrite({ conversationId: conversation, written: [files[4] ?? ''], limits, retentionDays: 7, logger });
  assert.deepEqual((await readdir(at(root, 'c/results'))).sort(), ['0002-q.txt', '0003-q.txt', '0004-q.txt', '0005-q.txt']);
});

test('the store unreachable: the spill is kept, one warning per outage, the check is skipped and stats say so; back: measured again', async (t) => {
  const nowMs = Date.now();
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  let clockMs = nowMs;
  // The store and the replica read one clock: "measured at" is the store's time.
  const coordinator = new FlakyCoordinator(() => clockMs);
  const guard = new SharedDiskQuotaGuard({ root, coordinator, now: () => new Date(clockMs), expiryLog: sharedExpiryLog(coordinator) });
  const { logger, lines } = capturedLogger();
  const spill = (i: number) => seedFile(root, `c/results/000${i}-q.txt`, (10 - i) / 1440, nowMs, kib(10));
  const files = [await spill(1)];
  await guard.afterWrite({ conversationId: conversation, written: [files[0] ?? ''], limits, retentionDays: 7, logger });
  coordinator.mode = 'down';
  for (let i = 2; i <= 5; i += 1) {
    files.push(await spill(i));
    await guard.afterWrite({ conversationId: conversation, written: [files[i - 1] ?? ''], limits, retentionDays: 7, logger });
  }
  assert.equal((await readdir(at(root, 'c/results'))).length, 5, 'every spill kept, none evicted');
  assert.equal(lines.filter((line) => line.msg.startsWith('disk quota: the coordination store cannot be reached')).length, 1);
  assert.deepEqual(
    { ...guard.stats().shared, unavailableSince: undefined, lastError: undefined },
    {
      store: 'memory',
      available: false,
      skippedChecks: 4,
      unavailableSince: undefined,
      lastError: undefined,
    },
  );
  coordinator.mode = 'up';
  clockMs += 1_000;
  files.push(await spill(6));
  await guard.afterWrite({ conversationId: conversation, written: [files[5] ?? ''], limits, retentionDays: 7, logger });
  assert.equal(guard.stats().shared?.available, true);
  assert.ok(lines.some((line) => line.msg.startsWith('disk quota: the coordination store answers again')));
  // The spills missed while it was down are counted by the measurement that follows (in the background): the next check sees them.
  await waitFor(async () => (await coordinator.readCounts('quota:bytes')).measuredAt === clockMs, 'the measurement after the outage');
  await guard.afterWrite({ conversationId: conversation, written: [files[5] ?? ''], limits, retentionDays: 7, logger });
  const usage = await measureConversation(root, conversation, { withFiles: false, nowMs });
  assert.ok(usage.bytes <= limits.maxBytesPerConversation, `back under the limit: ${usage.bytes}`);
});

test('a store that does not answer never stalls the spill: the check gives up and counts as unreachable', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new FlakyCoordinator();
  coordinator.mode = 'silent';
  const guard = new SharedDiskQuotaGuard({ root, coordinator, timeoutMs: 5 });
  const file = await seedFile(root, 'c/results/0001-q.txt', 0, Date.now(), kib(10));
  await guard.afterWrite({ conversationId: conversation, written: [file], limits, retentionDays: 7, logger: capturedLogger().logger });
  assert.equal(guard.stats().shared?.available, false);
  await stat(file);
});

test('a sweep whose shared expiry log cannot be written keeps the files; with the log it removes them and records them there', async (t) => {
  const nowMs = Date.now();
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  await seedFile(root, 'c/results/0001-old.jsonl', 9, nowMs);
  await seedFile(root, 'c/results/0001-old.jsonl.meta.json', 9, nowMs, '{}');
  const failing = {
    required: true,
    record: () => Promise.reject(new SpillwayError('COORDINATION_UNAVAILABLE', 'Redis is down (test)', { retryable: true })),
  };
  const kept = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs), expiryLog: failing });
  await stat(at(root, 'c/results/0001-old.jsonl'));
  await stat(at(root, 'c/results/0001-old.jsonl.meta.json'));
  assert.equal(kept.deleted.files, 0);
  assert.equal(kept.skipped.files, 2);
  assert.ok(kept.problems.some((problem) => problem.path === reported('c/.expired.jsonl') && /kept/.test(problem.message)));

  const coordinator = new MemoryCoordinator();
  const swept = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs), expiryLog: sharedExpiryLog(coordinator) });
  assert.equal(swept.deleted.files, 2);
  assert.equal(await coordinator.readScore(expiryKey(conversation), 'results/0001-old.jsonl'), nowMs);
  await assert.rejects(stat(path.join(at(root, 'c'), '.expired.jsonl')), 'recorded in the store, not in a file');
});

test('over maxBytes by the shared total alone (a phantom: the sweep removed files since): the root is measured before anything is evicted', async (t) => {
  const nowMs = Date.now();
  let clockMs = nowMs;
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new MemoryCoordinator();
  const guard = new SharedDiskQuotaGuard({ root, coordinator, now: () => new Date(clockMs), expiryLog: sharedExpiryLog(coordinator) });
  const { logger } = capturedLogger();
  const rootLimits = { maxBytes: 45 * 1024, maxBytesPerConversation: 0 };
  const write = async (relative: string, ageMinutes: number) => {
    const file = await seedFile(root, relative, ageMinutes / 1440, nowMs, kib(10));
    const conversationId = `${principal}/${relative.split('/')[0] ?? ''}`;
    await guard.afterWrite({ conversationId, written: [file], limits: rootLimits, retentionDays: 7, logger });
  };
  await write('old/results/0001-q.txt', 10);
  await write('c/results/0001-q.txt', 9);
  await write('c/results/0002-q.txt', 8);
  // Another writer's 1 GB was counted, then removed (by an operator, a sweep): the shared total is a phantom.
  await coordinator.addCounts(['quota:bytes'], { all: 1_000_000_000 });
  clockMs += 30_000;
  await write('c/results/0003-q.txt', 7);
  assert.equal((await readdir(at(root, 'c/results'))).length, 3, 'measured again first: 40 KiB fits, nothing evicted');
  assert.ok(((await coordinator.readCounts('quota:bytes')).all ?? 0) < 1_000_000, 'the phantom is gone from the totals');
  await write('c/results/0004-q.txt', 6);
  assert.deepEqual(
    (await readdir(at(root, 'c/results'))).sort(),
    ['0002-q.txt', '0003-q.txt', '0004-q.txt'],
    "truly over: the writing conversation's oldest spill went",
  );
  await stat(at(root, 'old/results/0001-q.txt'));
});

test("a replica whose clock runs minutes behind still sees the fleet's measurement as old: the root is measured before anything is evicted", async (t) => {
  const nowMs = Date.now();
  let storeMs = nowMs;
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new MemoryCoordinator(() => storeMs);
  const expiryLog = sharedExpiryLog(coordinator);
  const ahead = new SharedDiskQuotaGuard({ root, coordinator, now: () => new Date(storeMs), expiryLog });
  // Ten minutes behind the store and the other replica: on its own clock the measurement would look eight minutes in the future.
  const behind = new SharedDiskQuotaGuard({ root, coordinator, now: () => new Date(storeMs - 10 * 60_000), expiryLog });
  const { logger } = capturedLogger();
  const rootLimits = { maxBytes: 45 * 1024, maxBytesPerConversation: 0 };
  const write = async (guard: QuotaGuard, relative: string, ageMinutes: number) => {
    const file = await seedFile(root, relative, ageMinutes / 1440, nowMs, kib(10));
    await guard.afterWrite({ conversationId: `${principal}/${relative.split('/')[0] ?? ''}`, written: [file], limits: rootLimits, retentionDays: 7, logger });
  };
  await write(ahead, 'old/results/0001-q.txt', 10);
  await write(ahead, 'c/results/0001-q.txt', 9);
  await write(behind, 'c/results/0002-q.txt', 8);
  await coordinator.addCounts(['quota:bytes'], { all: 1_000_000_000 });
  storeMs += 2 * 60_000;
  await write(behind, 'c/results/0003-q.txt', 7);
  assert.equal((await readdir(at(root, 'c/results'))).length, 3, 'measured again first: 40 KiB fits, nothing evicted for the phantom');
  assert.ok(((await coordinator.readCounts('quota:bytes')).all ?? 0) < 1_000_000, 'the phantom is gone from the totals');
  const measuredAt = (await coordinator.readCounts('quota:bytes')).measuredAt ?? 0;
  assert.ok(Math.abs(measuredAt - storeMs) < 1_000, `the measurement is stamped with the store's time (${measuredAt} vs ${storeMs})`);
});

/** A memory coordinator that holds the next eviction-lock request until told: one replica's round runs while another's waits. */
class GatedCoordinator extends MemoryCoordinator {
  private held: { arrived: () => void; gate: Promise<void> } | undefined;

  /** The next evict-lock request waits; resolves when it has arrived, with the function that lets it go on. */
  holdNextEvictLock(): Promise<() => void> {
    return new Promise((resolveArrived) => {
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      this.held = { arrived: () => resolveArrived(open), gate };
    });
  }

  override async tryLock(key: string, leaseMs: number) {
    const held = this.held;
    if (held !== undefined && key.startsWith('quota:evict-lock:')) {
      this.held = undefined;
      held.arrived();
      await held.gate;
    }
    return super.tryLock(key, leaseMs);
  }
}

test("a replica whose eviction round waits for another's lock counts from the totals after that round: the shared count never drops below the disk", async (t) => {
  const nowMs = Date.now();
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new GatedCoordinator();
  // Expiries recorded in the store, as in a fleet: the conversation's folder holds only the spills.
  const expiryLog = sharedExpiryLog(coordinator);
  const [first, second] = [0, 1].map(() => new SharedDiskQuotaGuard({ root, coordinator, now: () => new Date(nowMs), expiryLog }));
  const { logger } = capturedLogger();
  const spill = (i: number) => seedFile(root, `c/results/000${i}-q.txt`, (10 - i) / 1440, nowMs, kib(10));
  const check = (guard: QuotaGuard | undefined, file: string) =>
    guard!.afterWrite({ conversationId: conversation, written: [file], limits, retentionDays: 7, logger });
  for (let i = 1; i <= 4; i += 1) await check(first, await spill(i));
  assert.equal((await coordinator.readCounts('quota:bytes'))[conversation], 40 * 1024, 'at the limit, not over');
  const fifth = await spill(5);
  const sixth = await spill(6);
  // The first replica counts its spill (50 KiB: over) and waits for the lock; the second evicts meanwhile.
  const arrived = coordinator.holdNextEvictLock();
  const firstCheck = check(first, fifth);
  const letGo = await arrived;
  await check(second, sixth);
  letGo();
  await firstCheck;
  const onDisk = await measureConversation(root, conversation, { withFiles: false, nowMs });
  assert.ok(onDisk.bytes <= limits.maxBytesPerConversation, `within the limit: ${onDisk.bytes}`);
  assert.equal((await coordinator.readCounts('quota:bytes'))[conversation], onDisk.bytes, 'the shared count is what the disk holds');
});

/** A memory coordinator on which a fleet measurement lands (replacing the totals) just before the next eviction round applies its change. */
class MeasuredMeanwhileCoordinator extends MemoryCoordinator {
  landBeforeChange: (() => Promise<Record<string, number>>) | undefined;

  private async land(): Promise<void> {
    const measure = this.landBeforeChange;
    this.landBeforeChange = undefined;
    if (measure !== undefined) await super.replaceCounts('quota:bytes', await measure());
  }

  override async addCounts(keys: readonly string[], by: Readonly<Record<string, number>>): Promise<Record<string, number>> {
    // The round's change: the only add of non-zero amounts to the totals alone.
    if (keys.length === 1 && keys[0] === 'quota:bytes' && Object.values(by).some((amount) => amount !== 0)) await this.land();
    return super.addCounts(keys, by);
  }

  override async addCountsIf(key: string, by: Readonly<Record<string, number>>, when: { field: string; equals: number }): Promise<boolean> {
    await this.land();
    return super.addCountsIf(key, by, when);
  }
}

test('a fleet measurement that lands while an eviction round works is not corrected twice: the shared count stays what the disk holds', async (t) => {
  const nowMs = Date.now();
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const coordinator = new MeasuredMeanwhileCoordinator();
  const guard = new SharedDiskQuotaGuard({ root, coordinator, now: () => new Date(nowMs), expiryLog: sharedExpiryLog(coordinator) });
  const { logger } = capturedLogger();
  const spill = (i: number) => seedFile(root, `c/results/000${i}-q.txt`, (10 - i) / 1440, nowMs, kib(10));
  for (let i = 1; i <= 4; i += 1) await guard.afterWrite({ conversationId: conversation, written: [await spill(i)], limits, retentionDays: 7, logger });
  // Counted twice somewhere (a spill during a measurement): the round's correction takes 5 KiB off.
  await coordinator.addCounts(['quota:bytes'], { all: 5 * 1024, [conversation]: 5 * 1024 });
  coordinator.landBeforeChange = async () => {
    const truth = (await measureConversation(root, conversation, { withFiles: false, nowMs })).bytes;
    return { all: truth, [conversation]: truth, measuredAt: nowMs + 1 };
  };
  await guard.afterWrite({ conversationId: conversation, written: [await spill(5)], limits, retentionDays: 7, logger });
  assert.equal(coordinator.landBeforeChange, undefined, 'the measurement landed inside the round');
  const onDisk = await measureConversation(root, conversation, { withFiles: false, nowMs });
  assert.ok(onDisk.bytes <= limits.maxBytesPerConversation, `within the limit: ${onDisk.bytes}`);
  assert.equal((await coordinator.readCounts('quota:bytes'))[conversation], onDisk.bytes, 'the shared count is what the disk holds');
});
