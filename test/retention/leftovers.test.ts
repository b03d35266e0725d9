import assert from 'node:assert/strict';
import { link, lstat, mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/output.js';
import { recoverSandbox } from '../../src/retention/recover-sandbox.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { isPublishTempName } from '../../src/sandbox/index.js';
import { rejectionCode } from '../helpers/temp-dir.js';
import { tempHost } from '../helpers/temp-host.js';

const minute = 60_000;
const tempName = (final: string) => `.${final}.4242.0123456789ab.tmp`;

function captureIo(): CliIo & { stdout: string[] } {
  const stdout: string[] = [];
  return { stdout, interactive: false, out: (text) => stdout.push(text), err: () => undefined };
}

async function age(file: string, ms: number): Promise<void> {
  const when = new Date(Date.now() - ms);
  await utimes(file, when, when);
}

test('the temporary name pattern is exactly the one createPendingFile makes', () => {
  assert.equal(isPublishTempName('.report.csv.123.0a1b2c3d4e5f.tmp'), true);
  assert.equal(isPublishTempName('.report.csv.tmp'), false);
  assert.equal(isPublishTempName('report.csv.123.0a1b2c3d4e5f.tmp'), false);
  assert.equal(isPublishTempName('.x.123.0A1B2C3D4E5F.tmp'), false);
});

test('a read repairs a file whose second link is our temporary name in its folder, before it would refuse it', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  const file = path.join(sandbox.dir, 'outputs', 'report.csv');
  await writeFile(file, 'a,b\n1,2\n');
  await link(file, path.join(sandbox.dir, 'outputs', tempName('report.csv')));
  const { data } = await sandbox.readFile('outputs/report.csv');
  assert.equal(data.toString(), 'a,b\n1,2\n');
  assert.equal((await lstat(file)).nlink, 1);
  assert.deepEqual(await readdir(path.join(sandbox.dir, 'outputs')), ['report.csv']);
});

test('a second link that is not our temporary name in the same folder stays refused (PATH_HARDLINK), by reads and by recovery', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  const outside = path.join(env.dir, 'secret.txt');
  await writeFile(outside, 'secret\n');
  // A plain second name, a temp-looking name in another folder, and a file with a third link outside.
  await link(outside, path.join(sandbox.dir, 'outputs', 'planted.txt'));
  await writeFile(path.join(sandbox.dir, 'outputs', 'moved.txt'), 'x\n');
  await link(path.join(sandbox.dir, 'outputs', 'moved.txt'), path.join(sandbox.dir, 'args', tempName('moved.txt')));
  await writeFile(path.join(sandbox.dir, 'outputs', 'three.txt'), 'y\n');
  await link(path.join(sandbox.dir, 'outputs', 'three.txt'), path.join(sandbox.dir, 'outputs', tempName('three.txt')));
  await link(path.join(sandbox.dir, 'outputs', 'three.txt'), path.join(env.dir, 'three-outside.txt'));

  await recoverSandbox({ root: env.sandboxRoot, graceMs: 10 * minute });
  assert.equal(await rejectionCode(sandbox.readFile('outputs/planted.txt')), 'PATH_HARDLINK');
  assert.equal(await rejectionCode(sandbox.readFile('outputs/moved.txt')), 'PATH_HARDLINK');
  assert.equal(await rejectionCode(sandbox.readFile('outputs/three.txt')), 'PATH_HARDLINK');
  assert.equal((await lstat(outside)).nlink, 2);
});

test('temporary files past the grace period go from every folder, outputs/ included; younger ones stay; --dry-run lists them as leftovers', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  const at = (relative: string) => path.join(sandbox.dir, relative);
  await mkdir(at('outputs/sub'));
  const old = [
    'outputs/.big.xlsx.77.aaaaaaaaaaaa.tmp',
    'outputs/sub/.x.csv.77.bbbbbbbbbbbb.tmp',
    'results/.0003-q.jsonl.77.cccccccccccc.tmp',
    'results/0004-q.jsonl.meta.json',
  ];
  const young = ['outputs/.fresh.csv.77.dddddddddddd.tmp', 'results/0005-q.jsonl.meta.json'];
  for (const relative of [...old, ...young]) await writeFile(at(relative), '{}');
  for (const relative of old) await age(at(relative), 30 * minute);
  // An old sidecar beside its data is not a leftover; an old plain file in outputs/ is never touched.
  await writeFile(at('results/0006-q.jsonl'), '{}\n');
  await writeFile(at('results/0006-q.jsonl.meta.json'), '{}');
  await writeFile(at('outputs/.hidden-but-mine.txt'), 'keep');
  for (const relative of ['results/0006-q.jsonl', 'results/0006-q.jsonl.meta.json', 'outputs/.hidden-but-mine.txt']) await age(at(relative), 30 * minute);

  const dry = captureIo();
  assert.equal(await main(['cleanup', '--root', env.sandboxRoot, '--dry-run'], dry), 0);
  const listed = (dry.stdout.find((block) => block.includes('(leftover:')) ?? '').split('\n').sort();
  assert.deepEqual(listed, [
    'local/c1/outputs/.big.xlsx.77.aaaaaaaaaaaa.tmp (leftover: temporary file)',
    'local/c1/outputs/sub/.x.csv.77.bbbbbbbbbbbb.tmp (leftover: temporary file)',
    'local/c1/results/.0003-q.jsonl.77.cccccccccccc.tmp (leftover: temporary file)',
    'local/c1/results/0004-q.jsonl.meta.json (leftover: sidecar without data)',
  ]);
  for (const relative of old) await lstat(at(relative));

  const report = await sweepSandbox({ root: env.sandboxRoot, olderThanMs: 7 * 86_400_000, tempGraceMs: 10 * minute });
  assert.equal(report.leftovers.removed.files, 4);
  for (const relative of old) assert.equal(await rejectionCode(lstat(at(relative))), 'ENOENT');
  for (const relative of [...young, 'results/0006-q.jsonl.meta.json', 'outputs/.hidden-but-mine.txt']) await lstat(at(relative));
  // The clock is injectable: ten minutes on, the young ones are leftovers too.
  const later = new Date(Date.now() + 11 * minute);
  const next = await sweepSandbox({ root: env.sandboxRoot, olderThanMs: 7 * 86_400_000, tempGraceMs: 10 * minute, now: () => later });
  assert.equal(next.leftovers.removed.files, 2);
});
