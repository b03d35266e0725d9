import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { tempHost } from '../helpers/temp-host.js';
import { at, day, reported, seedFile, tempSandbox } from './seed-sandbox.js';

const kib = (n: number) => 'x'.repeat(n * 1024);

test('the sweep evicts the oldest non-output files of a conversation over maxBytesPerConversation; outputs/ never', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  // a: 4 spills of 10 KiB (ages 1-4 days) + a 30 KiB output that is older than all of them.
  for (let i = 1; i <= 4; i += 1) await seedFile(root, `a/results/000${i}-q.jsonl`, 5 - i, nowMs, kib(10));
  await seedFile(root, 'a/outputs/big.csv', 6, nowMs, kib(30));
  await seedFile(root, 'b/results/0001-q.jsonl', 6, nowMs, kib(10));
  const report = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs), quota: { maxBytes: 0, maxBytesPerConversation: 55 * 1024 } });
  // a held 70 KiB: the two oldest spills go (to 50 KiB); the output stays although it is the oldest file.
  assert.deepEqual((await readdir(at(root, 'a/results'))).sort(), ['0003-q.jsonl', '0004-q.jsonl']);
  await stat(at(root, 'a/outputs/big.csv'));
  await stat(at(root, 'b/results/0001-q.jsonl'));
  assert.deepEqual(report.quotaEvictions, { files: 2, bytes: 20 * 1024 });
  assert.equal(report.deleted.files, 2);
  assert.equal(report.scanned.files, report.deleted.files + report.kept.files + report.skipped.files + report.errors.files);
  const log = await readFile(at(root, 'a/.expired.jsonl'), 'utf8');
  assert.match(log, /results\/0001-q\.jsonl/);
  assert.match(log, /results\/0002-q\.jsonl/);
});

test('over maxBytes the oldest non-output files of any conversation go first; a dry run only lists them', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  await seedFile(root, 'a/results/0001-q.jsonl', 5, nowMs, kib(10));
  await seedFile(root, 'a/results/0001-q.jsonl.meta.json', 5, nowMs, '{}');
  await seedFile(root, 'b/errors/0001-e.txt', 4, nowMs, kib(10));
  await seedFile(root, 'a/args/x.json', 3, nowMs, kib(10));
  await seedFile(root, 'b/outputs/keep.xlsx', 6, nowMs, kib(10));
  await seedFile(root, 'b/results/0002-q.jsonl', 9, nowMs, kib(10)); // expired by age anyway
  const quota = { maxBytes: 25 * 1024, maxBytesPerConversation: 0 };
  const dry = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs), quota, dryRun: true, listPaths: true });
  assert.deepEqual(dry.paths, ['b/results/0002-q.jsonl', 'a/results/0001-q.jsonl', 'a/results/0001-q.jsonl.meta.json', 'b/errors/0001-e.txt'].map(reported));
  await stat(at(root, 'a/results/0001-q.jsonl'));
  const real = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs), quota, listPaths: true });
  assert.deepEqual(real.paths, dry.paths);
  await stat(at(root, 'a/args/x.json'));
  await stat(at(root, 'b/outputs/keep.xlsx'));
  // 20 KiB of files left, plus the expiry log the age pass wrote (the quota counts every byte).
  assert.ok(real.bytesAfter !== undefined && real.bytesAfter >= 20 * 1024 && real.bytesAfter < 20 * 1024 + 512, String(real.bytesAfter));
});

test('a spill that passes maxBytesPerConversation evicts the oldest spills of that conversation, never the new one or outputs/', async (t) => {
  const env = await tempHost({ retention: { maxBytes: 0, maxBytesPerConversation: 40 * 1024 } });
  t.after(() => env.cleanup());
  const payload = (n: number) => ({ value: `${n}:${kib(10)}` });
  let calls = 0;
  env.host.registerTool({ name: 'blob', description: 'blob', inputSchema: { type: 'object' }, handler: () => payload((calls += 1)) });
  await seedFile(env.sandboxRoot, 'c1/outputs/kept.csv', 30, Date.now(), kib(5));
  // Older than every spill of c1, but another conversation's: the per-conversation quota never takes it.
  await seedFile(env.sandboxRoot, 'c2/results/0001-other.txt', 6, Date.now(), kib(10));
  const paths: string[] = [];
  for (let i = 0; i < 6; i += 1) {
    const result = await env.host.execute({ name: 'blob', arguments: {} }, { conversationId: 'c1' });
    assert.ok(result.spill !== undefined, 'the result spilled');
    paths.push(result.spill.path);
    await stat(path.join(env.host.sandbox.conversation('c1').dir, result.spill.path));
  }
  const left = (await readdir(at(env.sandboxRoot, 'c1/results'))).filter((name) => !name.endsWith('.meta.json')).sort();
  assert.deepEqual(
    left,
    paths.slice(-3).map((entry) => path.basename(entry)),
    'the three newest spills fit in 40 KiB beside the 5 KiB output',
  );
  await stat(at(env.sandboxRoot, 'c1/outputs/kept.csv'));
  await stat(at(env.sandboxRoot, 'c2/results/0001-other.txt'));
  const read = await env.host.execute({ name: 'read_file', arguments: { path: paths[0] } }, { conversationId: 'c1' });
  assert.equal(read.error?.code, 'PATH_EXPIRED');
});

test("a spill that passes maxBytes evicts its own conversation's oldest files, never another conversation's", async (t) => {
  const env = await tempHost({ retention: { maxBytes: 45 * 1024, maxBytesPerConversation: 0 } });
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'blob', description: 'blob', inputSchema: { type: 'object' }, handler: () => ({ value: kib(10) }) });
  const nowMs = Date.now();
  await seedFile(env.sandboxRoot, 'old/results/0001-q.txt', 5, nowMs, kib(10));
  await seedFile(env.sandboxRoot, 'old/outputs/keep.csv', 4, nowMs, kib(10));
  await seedFile(env.sandboxRoot, 'new/results/0001-q.txt', 3, nowMs, kib(10));
  const first = await env.host.execute({ name: 'blob', arguments: {} }, { conversationId: 'new' });
  await stat(at(env.sandboxRoot, 'new/results/0001-q.txt')); // 40 KiB + metadata: still under
  const second = await env.host.execute({ name: 'blob', arguments: {} }, { conversationId: 'new' });
  await assert.rejects(stat(at(env.sandboxRoot, 'new/results/0001-q.txt')), "the writing conversation's oldest file went");
  await stat(at(env.sandboxRoot, 'old/results/0001-q.txt')); // older, but another conversation's: kept
  await stat(at(env.sandboxRoot, 'old/outputs/keep.csv'));
  await stat(at(env.sandboxRoot, 'new', first.spill?.path ?? 'missing'));
  await stat(at(env.sandboxRoot, 'new', second.spill?.path ?? 'missing'));
});

test("per conversation means per principal and conversation: bob's spills in c1 never evict alice's c1", async (t) => {
  const env = await tempHost({ retention: { maxBytes: 0, maxBytesPerConversation: 25 * 1024 } });
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'blob', description: 'blob', inputSchema: { type: 'object' }, handler: () => ({ value: kib(10) }) });
  const alice = await env.host.execute({ name: 'blob', arguments: {} }, { conversationId: 'c1', principal: 'alice' });
  const aliceFile = path.join(env.host.sandbox.conversation('c1', 'alice').dir, alice.spill?.path ?? 'missing');
  for (let call = 0; call < 4; call += 1) await env.host.execute({ name: 'blob', arguments: {} }, { conversationId: 'c1', principal: 'bob' });
  const bobLeft = (await readdir(path.join(env.host.sandbox.conversation('c1', 'bob').dir, 'results'))).filter((name) => !name.endsWith('.meta.json'));
  assert.ok(bobLeft.length < 4, "bob's own conversation went over its quota and lost its oldest spills");
  assert.equal(await readFile(aliceFile, 'utf8'), kib(10), "alice's spill in her c1 is untouched");
});
