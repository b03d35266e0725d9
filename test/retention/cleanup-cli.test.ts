import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/output.js';
import { acquireSweepLock } from '../../src/retention/sweep-lock.js';
import type { SweepReport } from '../../src/retention/sweep-report.js';
import { at, reported, seedFile, tempSandbox } from './seed-sandbox.js';

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, interactive: false, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

async function populate(root: string, nowMs: number): Promise<string[]> {
  return [
    await seedFile(root, 'a/results/0001-q.jsonl', 9, nowMs),
    await seedFile(root, 'a/results/0001-q.jsonl.meta.json', 9, nowMs, '{}'),
    await seedFile(root, 'a/results/0002-q.jsonl', 1, nowMs),
    await seedFile(root, 'a/outputs/old-report.csv', 60, nowMs),
    await seedFile(root, 'b/args/call.json', 1.2, nowMs),
    await seedFile(root, 'b/scripts/s.js', 2.5, nowMs),
  ];
}

test('cleanup --dry-run lists what would go and deletes nothing; the real run deletes exactly that list', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  await populate(root, Date.now());
  const dry = captureIo();
  assert.equal(await main(['cleanup', '--root', root, '--dry-run', '--older-than', '36h'], dry), 0);
  const listed = dry.stdout[0]?.split('\n') ?? [];
  assert.deepEqual(listed.sort(), ['a/results/0001-q.jsonl', 'a/results/0001-q.jsonl.meta.json', 'b/scripts/s.js'].map(reported));
  assert.match(dry.stdout[1] ?? '', /Dry run: nothing was deleted/);
  assert.match(dry.stdout[1] ?? '', /would delete: +3 files/);
  for (const file of listed) await stat(path.join(root, file));

  const real = captureIo();
  assert.equal(await main(['cleanup', '--root', root, '--older-than', '36h', '--list'], real), 0);
  assert.deepEqual(real.stdout[0]?.split('\n').sort(), listed.sort());
  for (const file of listed) await assert.rejects(stat(path.join(root, file)));
  await stat(at(root, 'a/results/0002-q.jsonl'));
  await stat(at(root, 'a/outputs/old-report.csv'));
});

test('cleanup --json prints the report as one JSON line; the default age is retention.days from --config', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  await populate(root, Date.now());
  const configFile = path.join(path.dirname(root), 'spillway.json');
  await writeFile(configFile, JSON.stringify({ sandbox: { root: 'sandbox' }, retention: { days: 2 } }));
  const io = captureIo();
  assert.equal(await main(['cleanup', '--config', configFile, '--json'], io), 0);
  assert.equal(io.stdout.length, 1);
  const report = JSON.parse(io.stdout[0] ?? '') as SweepReport;
  assert.equal(report.olderThanMs, 2 * 86_400_000);
  assert.equal(report.root, root);
  assert.deepEqual(report.deleted, { files: 3, bytes: report.deleted.bytes });
  assert.equal(report.dryRun, false);
  assert.deepEqual(await readdir(at(root, 'b/args')), ['call.json'], 'younger than 2 days: kept');
});

test('cleanup refuses a root without the marker and a root of / with exit status 1 and a message', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const file = await seedFile(root, 'a/results/0001-q.jsonl', 30, Date.now());
  await rm(path.join(root, '.spillway-sandbox'));
  const io = captureIo();
  assert.equal(await main(['cleanup', '--root', root], io), 1);
  assert.match(io.stderr.join('\n'), /no \.spillway-sandbox marker/);
  await stat(file);
  const slash = captureIo();
  assert.equal(await main(['cleanup', '--root', '/'], slash), 1);
  assert.match(slash.stderr.join('\n'), /filesystem root/);
});

test('cleanup exits 75 while another sweep holds the lock, and 2 on a bad --older-than', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const lock = await acquireSweepLock(root);
  const io = captureIo();
  try {
    assert.equal(await main(['cleanup', '--root', root], io), 75);
  } finally {
    await lock.release();
  }
  assert.match(io.stderr.join('\n'), /Another retention sweep is running/);
  for (const bad of ['7', '0h', '-3d', 'week', '7 days']) {
    const badIo = captureIo();
    assert.equal(await main(['cleanup', '--root', root, '--older-than', bad], badIo), 2, bad);
    assert.match(badIo.stderr.join('\n'), /--older-than/);
  }
});

test('the spillway binary runs cleanup and exits with its status', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  await populate(root, Date.now());
  const bin = path.resolve('bin/spillway.js');
  const run = promisify(execFile);
  const { stdout } = await run(process.execPath, [bin, 'cleanup', '--root', root, '--json']);
  assert.equal((JSON.parse(stdout) as SweepReport).deleted.files, 2);
  await assert.rejects(
    run(process.execPath, [bin, 'cleanup', '--root', at(root, 'a')]),
    (error: { code?: number; stderr?: string }) => error.code === 1 && /marker/.test(error.stderr ?? ''),
  );
});
