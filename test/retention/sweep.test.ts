import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { SpillwayError } from '../../src/errors.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { ageFolder, at, day, reported, seedFile, tempSandbox } from './seed-sandbox.js';

const week = 7 * day;

/** Every file under a folder, relative to it, sorted. */
async function listTree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(absolute);
      else out.push(path.relative(root, absolute));
    }
  };
  await walk(root);
  return out.sort();
}

/** A deterministic generator, so the populated sandbox is the same on every run. */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

test('across many conversations exactly the expired non-output files go, with their sidecars; outputs/ never', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const random = generator(42);
  const expected: string[] = [];
  const all: string[] = [];
  for (let c = 0; c < 40; c += 1) {
    const id = `conv-${c}`;
    for (const folder of ['results', 'errors', 'args', 'scripts', 'outputs']) {
      for (let f = 0; f < 4; f += 1) {
        // Ages away from the 7-day boundary by at least an hour, so the test does not depend on rounding.
        const ageDays = random() < 0.5 ? 1 + random() * 5.9 : 7.1 + random() * 20;
        const relative = `${id}/${folder}/${String(f).padStart(4, '0')}-tool.jsonl`;
        await seedFile(root, relative, ageDays, nowMs);
        all.push(relative);
        if (folder === 'results') {
          await seedFile(root, `${relative}.meta.json`, ageDays, nowMs, '{}');
          all.push(`${relative}.meta.json`);
        }
        if (folder !== 'outputs' && ageDays > 7) {
          expected.push(relative);
          if (folder === 'results') expected.push(`${relative}.meta.json`);
        }
      }
    }
  }
  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  const left = await listTree(at(root));
  const gone = all.filter((file) => !left.includes(file)).sort();
  assert.deepEqual(gone, expected.sort());
  assert.ok(left.filter((file) => file.includes('/outputs/')).length === 160, 'every output is still there');
  assert.equal(report.conversations, 40);
  assert.equal(report.deleted.files, expected.length);
  assert.equal(report.scanned.files, all.filter((file) => !file.includes('/outputs/')).length);
  assert.equal(report.scanned.files, report.deleted.files + report.kept.files + report.skipped.files + report.errors.files);
  assert.equal(report.scanned.bytes, report.deleted.bytes + report.kept.bytes + report.skipped.bytes + report.errors.bytes);
  assert.equal(report.errors.files, 0);
  // The fixed folders stay even when emptied.
  for (let c = 0; c < 40; c += 1)
    assert.deepEqual((await readdir(at(root, `conv-${c}`))).filter((name) => !name.startsWith('.')).sort(), [
      'args',
      'errors',
      'outputs',
      'results',
      'scripts',
    ]);
});

test('a dry run deletes nothing and lists exactly what the real sweep then deletes', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  await seedFile(root, 'a/results/0001-q.jsonl', 9, nowMs);
  await seedFile(root, 'a/results/0001-q.jsonl.meta.json', 9, nowMs, '{}');
  await seedFile(root, 'a/results/0002-q.jsonl', 2, nowMs);
  await seedFile(root, 'a/args/batch/one.json', 8, nowMs);
  await seedFile(root, 'a/outputs/report.csv', 30, nowMs);
  await seedFile(root, 'b/scripts/s.js', 10, nowMs);
  await seedFile(root, 'b/errors/0003-x.txt', 1, nowMs);
  const before = await listTree(at(root));

  const dry = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs), dryRun: true, listPaths: true });
  assert.deepEqual(await listTree(at(root)), before, 'nothing was deleted');
  await assert.rejects(lstat(at(root, 'a', '.expired.jsonl')), 'a dry run writes no expiry log');
  assert.equal(dry.dryRun, true);

  const real = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs), listPaths: true });
  const after = await listTree(at(root));
  const gone = before.filter((file) => !after.includes(file));
  assert.deepEqual([...(dry.paths ?? [])].sort(), [...(real.paths ?? [])].sort());
  assert.deepEqual((dry.paths ?? []).filter((entry) => !entry.endsWith('/')).sort(), gone.map(reported).sort());
  assert.deepEqual(dry.deleted, real.deleted);
  assert.ok(dry.paths?.includes(reported('a/args/batch/')), 'the emptied sub-folder is listed');
  await assert.rejects(stat(at(root, 'a/args/batch')), 'the emptied sub-folder went');
  await stat(at(root, 'a/args'));
});

test('a symlink in results/ pointing outside is removed as a link; its target is never touched', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const outside = path.join(path.dirname(root), 'precious.txt');
  await writeFile(outside, 'do not delete\n');
  const old = new Date(nowMs - 30 * day);
  await (await import('node:fs/promises')).utimes(outside, old, old);
  await mkdir(at(root, 'c/results'), { recursive: true });
  const link = at(root, 'c/results/0001-link.jsonl');
  await symlink(outside, link);
  execFileSync('touch', ['-h', '-d', new Date(nowMs - 10 * day).toISOString(), link]);
  // A young link to an old file stays (the link's own age counts, the target's is never looked at).
  const youngLink = at(root, 'c/results/0002-link.jsonl');
  await symlink(outside, youngLink);
  // A symlinked fixed folder is not followed at all.
  const outsideDir = path.join(path.dirname(root), 'elsewhere');
  await mkdir(outsideDir);
  await writeFile(path.join(outsideDir, 'old.txt'), 'old\n');
  await mkdir(at(root, 'd'), { recursive: true });
  await symlink(outsideDir, at(root, 'd/scripts'));

  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  await assert.rejects(lstat(link), 'the old link is gone');
  assert.ok((await lstat(youngLink)).isSymbolicLink());
  assert.equal(await readFile(outside, 'utf8'), 'do not delete\n');
  await stat(path.join(outsideDir, 'old.txt'));
  assert.ok(report.problems.some((problem) => problem.code === 'SYMLINK_FOLDER' && problem.path === reported('d/scripts')));
  assert.equal(report.errors.files, 0);
});

test('a file removed or rewritten between listing and unlink is skipped, not an error', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const vanishing = await seedFile(root, 'c/results/0001-a.jsonl', 9, nowMs);
  await seedFile(root, 'c/results/0001-a.jsonl.meta.json', 9, nowMs, '{}');
  const rewritten = await seedFile(root, 'c/results/0002-b.jsonl', 9, nowMs);
  await seedFile(root, 'c/results/0002-b.jsonl.meta.json', 9, nowMs, '{}');
  const plain = await seedFile(root, 'c/results/0003-c.jsonl', 9, nowMs);

  const report = await sweepSandbox({
    root,
    olderThanMs: week,
    now: () => new Date(nowMs),
    onPlanned: async (plan) => {
      assert.equal(plan.files.length, 3);
      await unlink(vanishing);
      await writeFile(rewritten, 'fresh content written after the listing\n');
    },
  });
  assert.equal(report.errors.files, 0);
  assert.equal(report.skipped.files, 3, 'the vanished file, the rewritten file and its sidecar');
  assert.equal(await readFile(rewritten, 'utf8'), 'fresh content written after the listing\n');
  await stat(`${rewritten}.meta.json`);
  await assert.rejects(stat(plain));
  // The vanished file's orphan sidecar went (its data file was listed as expired).
  await assert.rejects(stat(`${vanishing}.meta.json`));
  assert.equal(report.scanned.files, report.deleted.files + report.kept.files + report.skipped.files + report.errors.files);
});

test('a read-only expired file is deleted (permissions on a file do not keep it; outputs/ does)', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const file = await seedFile(root, 'c/results/0001-ro.jsonl', 9, nowMs);
  await chmod(file, 0o444);
  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  await assert.rejects(stat(file));
  assert.equal(report.deleted.files, 1);
});

test('a file that cannot be deleted is counted as an error and the sweep goes on', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const stuck = await seedFile(root, 'c/results/0001-stuck.jsonl', 9, nowMs);
  const other = await seedFile(root, 'c/results/0002-other.jsonl', 9, nowMs);
  try {
    execFileSync('chattr', ['+i', stuck], { stdio: 'ignore' });
  } catch {
    t.skip('chattr +i is not available here (needs an ext2/3/4 filesystem and CAP_LINUX_IMMUTABLE)');
    return;
  }
  let report;
  try {
    report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  } finally {
    execFileSync('chattr', ['-i', stuck], { stdio: 'ignore' });
  }
  assert.equal(report.errors.files, 1);
  assert.equal(report.deleted.files, 1);
  assert.equal(report.problems[0]?.path, reported('c/results/0001-stuck.jsonl'));
  assert.equal(report.problems[0]?.code, 'EPERM');
  await stat(stuck);
  await assert.rejects(stat(other));
});

test('a root without the marker and a root of / are refused before anything is touched', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const file = await seedFile(root, 'c/results/0001-a.jsonl', 30, nowMs);
  await rm(path.join(root, '.spillway-sandbox'));
  await assert.rejects(
    sweepSandbox({ root, olderThanMs: week }),
    (error: unknown) => SpillwayError.is(error) && error.code === 'SANDBOX_ROOT_INVALID' && /marker/.test(error.message),
  );
  await stat(file);
  await assert.rejects(
    sweepSandbox({ root: '/', olderThanMs: week }),
    (error: unknown) => SpillwayError.is(error) && error.code === 'SANDBOX_ROOT_INVALID' && /filesystem root/.test(error.message),
  );
  // A symlink that leads to / is a root of / too.
  const linkToSlash = path.join(path.dirname(root), 'slash');
  await symlink('/', linkToSlash);
  await assert.rejects(
    sweepSandbox({ root: linkToSlash, olderThanMs: week }),
    (error: unknown) => SpillwayError.is(error) && error.code === 'SANDBOX_ROOT_INVALID',
  );
  await assert.rejects(
    sweepSandbox({ root: at(root, 'missing'), olderThanMs: week }),
    (error: unknown) => SpillwayError.is(error) && error.code === 'SANDBOX_ROOT_INVALID',
  );
});

test('an age of zero or less is refused', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  for (const olderThanMs of [0, -day, Number.NaN]) {
    await assert.rejects(sweepSandbox({ root, olderThanMs }), (error: unknown) => SpillwayError.is(error) && error.code === 'INVALID_ARGUMENTS');
  }
});

test('files at the conversation level, unknown folders and files at the root are never touched', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const keep = [
    await seedFile(root, 'c/notes.txt', 30, nowMs),
    await seedFile(root, 'c/custom/old.txt', 30, nowMs),
    await seedFile(root, 'stray-file', 30, nowMs),
    await seedFile(root, '.hidden/results/old.txt', 30, nowMs),
  ];
  await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  for (const file of keep) await stat(file);
});

test('temporary files of writes in progress stay; crashed leftovers older than the retention go', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const fresh = await seedFile(root, 'c/results/.0001-a.jsonl.123.abc.tmp', 0, nowMs);
  const leftover = await seedFile(root, 'c/results/.0002-b.jsonl.123.def.tmp', 9, nowMs);
  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  await stat(fresh);
  await assert.rejects(stat(leftover));
  assert.equal(report.deleted.files, 1);
  await assert.rejects(readFile(at(root, 'c', '.expired.jsonl'), 'utf8'), 'temporary files are not recorded as expired');
});

test('empty sub-folders go only when the sweep emptied them or they are old; idle empty conversations go one period later', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  await mkdir(at(root, 'c/args/just-made'), { recursive: true });
  await mkdir(at(root, 'c/args/old-empty'), { recursive: true });
  await ageFolder(at(root, 'c/args/old-empty'), 9, nowMs);
  await seedFile(root, 'c/results/0001-a.jsonl', 9, nowMs);

  // An idle conversation: empty fixed folders, untouched for longer than the retention.
  for (const folder of ['results', 'errors', 'args', 'scripts', 'outputs']) await mkdir(at(root, 'idle', folder), { recursive: true });
  await writeFile(at(root, 'idle', '.expired.jsonl'), '{"path":"results/x","expiredAt":"2020-01-01T00:00:00.000Z"}\n');
  for (const name of ['results', 'errors', 'args', 'scripts', 'outputs', '.expired.jsonl']) await ageFolder(at(root, 'idle', name), 9, nowMs);
  await ageFolder(at(root, 'idle'), 9, nowMs);
  // Same, but outputs/ holds a file: it stays.
  await seedFile(root, 'kept/outputs/report.csv', 30, nowMs);
  for (const folder of ['results', 'errors', 'args', 'scripts']) await mkdir(at(root, 'kept', folder), { recursive: true });
  for (const name of ['results', 'errors', 'args', 'scripts', 'outputs']) await ageFolder(at(root, 'kept', name), 9, nowMs);
  await ageFolder(at(root, 'kept'), 9, nowMs);

  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs), listPaths: true });
  await stat(at(root, 'c/args/just-made'));
  await assert.rejects(stat(at(root, 'c/args/old-empty')));
  await assert.rejects(stat(at(root, 'idle')));
  await stat(at(root, 'kept/outputs/report.csv'));
  assert.equal(report.conversationsRemoved, 1);
  assert.ok(report.paths?.includes(reported('idle/')));
  // c was emptied by this sweep: it stays (with its "expired on …" log) for another period.
  assert.deepEqual((await readdir(at(root, 'c'))).sort(), ['.expired.jsonl', 'args', 'results']);
  const again = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  assert.equal(again.conversationsRemoved, 0);
});

test('the sweep records removed files so the expiry log names them with the sweep time', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  await seedFile(root, 'c/results/0001-a.jsonl', 9, nowMs);
  await seedFile(root, 'c/results/0001-a.jsonl.meta.json', 9, nowMs, '{}');
  await seedFile(root, 'c/scripts/sub/s.js', 9, nowMs);
  await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  const lines = (await readFile(at(root, 'c', '.expired.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { path: string; expiredAt: string });
  assert.deepEqual(lines.map((line) => line.path).sort(), ['results/0001-a.jsonl', 'scripts/sub/s.js']);
  for (const line of lines) assert.equal(line.expiredAt, new Date(nowMs).toISOString());
});

test('a larger sandbox (3,000 files in 60 conversations) is swept completely (100,000 in bench/retention)', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const old = new Date(nowMs - 10 * day);
  const { utimes } = await import('node:fs/promises');
  for (let c = 0; c < 60; c += 1) {
    const dir = at(root, `c${c}`, 'results');
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: 50 }, async (_, f) => {
        const file = path.join(dir, `${String(f).padStart(4, '0')}-t.jsonl`);
        await writeFile(file, 'x');
        if (f % 2 === 0) await utimes(file, old, old);
      }),
    );
  }
  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  assert.equal(report.scanned.files, 3_000);
  assert.equal(report.deleted.files, 1_500);
  assert.equal(report.kept.files, 1_500);
  assert.equal((await readdir(at(root, 'c7', 'results'))).length, 25);
});

test('an expiry log that is a symlink is never written through', async (t) => {
  const { root, cleanup } = await tempSandbox();
  t.after(cleanup);
  const nowMs = Date.now();
  const outside = path.join(path.dirname(root), 'outside.jsonl');
  await writeFile(outside, 'original\n');
  await seedFile(root, 'c/results/0001-a.jsonl', 9, nowMs);
  await symlink(outside, at(root, 'c', '.expired.jsonl'));
  const report = await sweepSandbox({ root, olderThanMs: week, now: () => new Date(nowMs) });
  assert.equal(report.deleted.files, 1);
  assert.equal(await readFile(outside, 'utf8'), 'original\n');
  assert.ok(report.problems.some((problem) => problem.path === reported('c/.expired.jsonl')));
});
