import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SpillwayError } from '../../src/errors.js';
import { acquireSweepLock, sweepLockName } from '../../src/retention/sweep-lock.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { day, seedFile, tempSandbox } from './seed-sandbox.js';

const isLocked = (error: unknown) => SpillwayError.is(error) && error.code === 'RETENTION_LOCKED';

test('two sweeps started at once: the second is refused with RETENTION_LOCKED while the first runs', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const file = await seedFile(root, 'c/results/0001-a.jsonl', 9, nowMs);
  let releaseFirst!: () => void;
  const firstMayGoOn = new Promise<void>((resolve) => (releaseFirst = resolve));
  let firstPlanned!: () => void;
  const firstIsPlanning = new Promise<void>((resolve) => (firstPlanned = resolve));
  const first = sweepSandbox({
    root,
    olderThanMs: 7 * day,
    onPlanned: async () => {
      firstPlanned();
      await firstMayGoOn;
    },
  });
  await firstIsPlanning;
  await assert.rejects(sweepSandbox({ root, olderThanMs: 7 * day }), (error: unknown) => isLocked(error) && /pid \d+/.test((error as Error).message));
  await assert.rejects(sweepSandbox({ root, olderThanMs: 7 * day, dryRun: true }), isLocked, 'a dry run waits its turn too, so its list is exact');
  releaseFirst();
  const report = await first;
  assert.equal(report.deleted.files, 1);
  await assert.rejects(lstat(file));
  await assert.rejects(lstat(path.join(root, sweepLockName)), 'the lock is released');
  await sweepSandbox({ root, olderThanMs: 7 * day });
});

test('a stale lock left by a dead process is taken over', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const child = spawn(process.execPath, ['-e', '']);
  const deadPid = child.pid as number;
  await once(child, 'exit');
  await writeFile(path.join(root, sweepLockName), JSON.stringify({ pid: deadPid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', token: 'dead' }));
  const file = await seedFile(root, 'c/results/0001-a.jsonl', 9, Date.now());
  const report = await sweepSandbox({ root, olderThanMs: 7 * day });
  assert.equal(report.deleted.files, 1);
  await assert.rejects(lstat(file));
  await assert.rejects(lstat(path.join(root, sweepLockName)));
});

test('a lock held by a live process is respected, and names it', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  t.after(() => child.kill());
  const lockPath = path.join(root, sweepLockName);
  await writeFile(lockPath, JSON.stringify({ pid: child.pid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', token: 'live' }));
  const file = await seedFile(root, 'c/results/0001-a.jsonl', 9, Date.now());
  await assert.rejects(
    sweepSandbox({ root, olderThanMs: 7 * day }),
    (error: unknown) => isLocked(error) && (error as Error).message.includes(`pid ${child.pid}`),
  );
  await lstat(file);
  assert.match(await readFile(lockPath, 'utf8'), /"token":"live"/, 'the live lock was left alone');
});

test('a lock whose pid now belongs to another process (pid reuse) or that is not a lock at all is taken over', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const lockPath = path.join(root, sweepLockName);
  const probe = await acquireSweepLock(root);
  await probe.release();
  if (probe.owner.processStart === undefined) {
    t.skip('no /proc here: a reused pid cannot be told from the holder');
    return;
  }
  // This process is alive, but it is not the process that wrote the lock: its start time differs.
  await writeFile(
    lockPath,
    JSON.stringify({ pid: process.pid, hostname: hostname(), processStart: '1', startedAt: '2026-01-01T00:00:00.000Z', token: 'reused' }),
  );
  const taken = await acquireSweepLock(root);
  assert.match(await readFile(lockPath, 'utf8'), new RegExp(taken.owner.token));
  await taken.release();
  await writeFile(lockPath, 'garbage that no sweep wrote');
  const lock = await acquireSweepLock(root);
  await lock.release();
  await assert.rejects(lstat(lockPath));
});

test('release removes only our own lock', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const lock = await acquireSweepLock(root);
  const lockPath = path.join(root, sweepLockName);
  // Someone replaced it (an operator removed ours and another sweep took it).
  await writeFile(lockPath, JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: 'x', token: 'someone-else' }));
  await lock.release();
  assert.match(await readFile(lockPath, 'utf8'), /someone-else/);
});
