import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/output.js';
import { migrateLayout, SandboxRoot, sandboxMarker } from '../../src/sandbox/index.js';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { rejectionCode, tempDir } from '../helpers/temp-dir.js';

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, interactive: false, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

/** A sandbox root of the layout before principals: <root>/<conversation>/{results,...}, each with one file. */
async function oldSandbox(t: import('node:test').TestContext, conversations: readonly string[]): Promise<string> {
  const root = path.join(await tempDir(t), 'sandbox');
  await mkdir(root);
  await writeFile(path.join(root, sandboxMarker), 'marker\n');
  for (const id of conversations) {
    for (const folder of ['results', 'errors', 'args', 'scripts', 'outputs']) await mkdir(path.join(root, id, folder), { recursive: true });
    await writeFile(path.join(root, id, 'results', '0001-q.jsonl'), `{"conversation":"${id}"}\n`);
    await writeFile(path.join(root, id, 'outputs', 'report.csv'), `a\n${id}\n`);
  }
  return root;
}

test('migrate-sandbox moves each old conversation under the principal; the root then opens and its files are reached', async (t) => {
  const root = await oldSandbox(t, ['conv-a', 'conv-b']);
  assert.equal(await rejectionCode(SandboxRoot.open(root)), 'SANDBOX_LAYOUT_OLD');
  assert.equal(await rejectionCode(sweepSandbox({ root, olderThanMs: 86_400_000 })), 'SANDBOX_LAYOUT_OLD', 'the sweep refuses it too');
  const serve = captureIo();
  assert.equal(await main(['serve', '--config', await configFor(t, root)], serve), 1);
  assert.match(serve.stderr.join('\n'), /SANDBOX_LAYOUT_OLD|migrate-sandbox --root/);

  const io = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root], io), 0);
  assert.deepEqual(io.stdout.slice(0, 2), ['moved: conv-a/ -> local/conv-a/', 'moved: conv-b/ -> local/conv-b/']);
  assert.match(io.stdout[2] ?? '', /moved 2 conversation folder\(s\) to local\//);
  assert.deepEqual((await readdir(root)).sort(), [sandboxMarker, 'local']);
  assert.equal((await stat(path.join(root, 'local'))).mode & 0o777, 0o700);
  assert.equal((await stat(path.join(root, 'local', 'conv-a'))).mode & 0o777, 0o700);

  const opened = await SandboxRoot.open(root);
  const read = await opened.conversation('conv-b').readFile('results/0001-q.jsonl');
  assert.equal(read.data.toString(), '{"conversation":"conv-b"}\n');

  const again = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root], again), 0, 'a rerun is harmless');
  assert.match(again.stdout.join('\n'), /nothing to migrate/);
});

test('migrate-sandbox --dry-run lists the moves and moves nothing; --principal picks the owner', async (t) => {
  const root = await oldSandbox(t, ['c1']);
  const dry = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root, '--principal', 'ops', '--dry-run'], dry), 0);
  assert.deepEqual(dry.stdout, ['would move: c1/ -> ops/c1/', `${root}: 1 conversation folder(s) would move to ops/ (dry run, nothing moved).`]);
  assert.deepEqual((await readdir(root)).sort(), [sandboxMarker, 'c1']);
  assert.equal(await main(['migrate-sandbox', '--root', root, '--principal', 'ops'], captureIo()), 0);
  assert.equal(await readFile(path.join(root, 'ops', 'c1', 'outputs', 'report.csv'), 'utf8'), 'a\nc1\n');
  const bad = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root, '--principal', '../x'], bad), 1);
  assert.match(bad.stderr.join('\n'), /Principal/);
});

test('a migration stopped halfway is finished by the next run; nothing is lost or moved twice', async (t) => {
  const root = await oldSandbox(t, ['c1', 'c2', 'c3', 'c4']);
  let moves = 0;
  await assert.rejects(
    migrateLayout({
      root,
      principal: 'local',
      onStep: () => {
        moves += 1;
        if (moves === 2) throw new Error('crash after two folders');
      },
    }),
    /crash after two folders/,
  );
  assert.deepEqual((await readdir(path.join(root, 'local'))).sort(), ['c1', 'c2']);
  assert.equal(await rejectionCode(SandboxRoot.open(root)), 'SANDBOX_LAYOUT_OLD', 'half migrated is still refused');
  const io = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root], io), 0);
  assert.deepEqual(io.stdout.slice(0, 2), ['moved: c3/ -> local/c3/', 'moved: c4/ -> local/c4/']);
  assert.deepEqual((await readdir(path.join(root, 'local'))).sort(), ['c1', 'c2', 'c3', 'c4']);
  for (const id of ['c1', 'c2', 'c3', 'c4']) {
    assert.equal(await readFile(path.join(root, 'local', id, 'results', '0001-q.jsonl'), 'utf8'), `{"conversation":"${id}"}\n`);
  }
  await SandboxRoot.open(root);
});

test('an old conversation named like the principal is parked and moved, also across a crash in between', async (t) => {
  const root = await oldSandbox(t, ['local', 'other']);
  await assert.rejects(
    migrateLayout({
      root,
      principal: 'local',
      onStep: () => {
        throw new Error('crash after the first folder');
      },
    }),
  );
  // "local" was parked at the root and moved first; "other" is still old.
  assert.deepEqual((await readdir(path.join(root, 'local'))).sort(), ['local']);
  const io = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root], io), 0);
  assert.deepEqual((await readdir(root)).sort(), [sandboxMarker, 'local']);
  assert.deepEqual((await readdir(path.join(root, 'local'))).sort(), ['local', 'other']);
  assert.equal(await readFile(path.join(root, 'local', 'local', 'outputs', 'report.csv'), 'utf8'), 'a\nlocal\n');
  await SandboxRoot.open(root);
});

test('a destination that already exists is left alone and reported (exit 3)', async (t) => {
  const root = await oldSandbox(t, ['c1']);
  await mkdir(path.join(root, 'local', 'c1', 'outputs'), { recursive: true });
  const io = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', root], io), 3);
  assert.match(io.stdout[0] ?? '', /left \(destination exists\): c1\/ -> local\/c1\//);
  assert.ok((await stat(path.join(root, 'c1', 'results', '0001-q.jsonl'))).isFile());
});

test('migrate-sandbox refuses a folder without the marker', async (t) => {
  const dir = await tempDir(t);
  await mkdir(path.join(dir, 'home', 'project', 'results'), { recursive: true });
  const io = captureIo();
  assert.equal(await main(['migrate-sandbox', '--root', path.join(dir, 'home')], io), 1);
  assert.match(io.stderr.join('\n'), /no \.spillway-sandbox marker/);
  assert.deepEqual(await readdir(path.join(dir, 'home')), ['project']);
});

async function configFor(t: import('node:test').TestContext, root: string): Promise<string> {
  const dir = await tempDir(t);
  const file = path.join(dir, 'spillway.json');
  await writeFile(
    file,
    JSON.stringify({ sandbox: { root }, data: { dir: path.join(dir, 'data') }, server: { host: '127.0.0.1', port: 0 }, log: { level: 'silent' } }),
  );
  return file;
}
