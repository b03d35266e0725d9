import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { link, mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { SandboxRoot, sandboxMarker } from '../../src/sandbox/index.js';
import { rejectionCode, tempDir } from '../helpers/temp-dir.js';

async function setup(t: import('node:test').TestContext) {
  const dir = await tempDir(t);
  const root = await SandboxRoot.open(path.join(dir, 'sandbox'));
  const a = root.conversation('conv-a');
  const b = root.conversation('conv-b');
  await a.ensure();
  await b.ensure();
  const outside = path.join(dir, 'outside');
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
  await writeFile(path.join(a.dir, 'results', 'mine.txt'), 'mine\n');
  await writeFile(path.join(b.dir, 'results', 'theirs.txt'), 'theirs\n');
  return { dir, root, a, b, outside };
}

test('a new root gets the marker and the five conversation folders', async (t) => {
  const { root, a } = await setup(t);
  assert.ok((await readdir(root.root)).includes(sandboxMarker));
  assert.deepEqual((await readdir(a.dir)).sort(), ['args', 'errors', 'outputs', 'results', 'scripts']);
});

test('a non-empty folder without the marker is refused as a sandbox root', async (t) => {
  const dir = await tempDir(t);
  await writeFile(path.join(dir, 'notes.txt'), 'x');
  assert.equal(await rejectionCode(SandboxRoot.open(dir)), 'SANDBOX_ROOT_INVALID');
  assert.equal(await rejectionCode(SandboxRoot.open('/')), 'SANDBOX_ROOT_INVALID');
});

test('conversation ids that could name another folder are refused', async (t) => {
  const { root } = await setup(t);
  for (const id of ['../conv-b', 'conv-a/../conv-b', '..', '.hidden', '', 'a b', 'x'.repeat(129)]) {
    assert.throws(() => root.conversation(id), { code: 'CONVERSATION_INVALID' }, id);
  }
});

test('reads a file inside and reports its relative path', async (t) => {
  const { a } = await setup(t);
  const { data, relative } = await a.readFile('results/mine.txt');
  assert.equal(data.toString(), 'mine\n');
  assert.equal(relative, 'results/mine.txt');
});

test('escaping paths are refused, each with its own code', async (t) => {
  const { a, dir } = await setup(t);
  const cases: [string, string][] = [
    ['../conv-b/results/theirs.txt', 'PATH_TRAVERSAL'],
    ['results/../../conv-b/results/theirs.txt', 'PATH_TRAVERSAL'],
    [path.join(dir, 'outside', 'secret.txt'), 'PATH_ABSOLUTE'],
    ['results\\..\\..\\conv-b', 'PATH_BACKSLASH'],
    ['results/mine.txt\0.png', 'PATH_NUL'],
    ['', 'PATH_EMPTY'],
  ];
  for (const [input, code] of cases) {
    assert.equal(await rejectionCode(a.openRead(input)), code, input);
    assert.equal(await rejectionCode(a.writeFile(input, 'x')), code, input);
  }
});

test('a symlink that leads out (to a folder, a file, or another conversation) is refused', async (t) => {
  const { a, b, outside } = await setup(t);
  await symlink(outside, path.join(a.dir, 'results', 'out-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(a.dir, 'results', 'out-file'));
  await symlink(b.dir, path.join(a.dir, 'results', 'to-b'));
  await symlink('../../conv-b/results/theirs.txt', path.join(a.dir, 'results', 'relative-to-b'));
  for (const input of ['results/out-dir/secret.txt', 'results/out-file', 'results/to-b/results/theirs.txt', 'results/relative-to-b']) {
    assert.equal(await rejectionCode(a.openRead(input)), 'PATH_ESCAPES', input);
  }
  assert.equal(await rejectionCode(a.writeFile('results/out-dir/new.txt', 'x')), 'PATH_ESCAPES');
  assert.equal(await rejectionCode(a.writeFile('results/to-b/results/new.txt', 'x')), 'PATH_ESCAPES');
  assert.equal(await rejectionCode(a.writeFile('results/out-file', 'x', { overwrite: true })), 'PATH_NOT_FILE');
  assert.deepEqual(await readdir(outside), ['secret.txt']);
  assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'secret\n');
  assert.deepEqual(await readdir(path.join(b.dir, 'results')), ['theirs.txt']);
});

test('a symlink that stays inside the conversation is followed', async (t) => {
  const { a } = await setup(t);
  await symlink('mine.txt', path.join(a.dir, 'results', 'alias.txt'));
  assert.equal((await a.readFile('results/alias.txt')).data.toString(), 'mine\n');
});

test('a hard-linked file is refused, even one linked from outside', async (t) => {
  const { a, outside } = await setup(t);
  await link(path.join(outside, 'secret.txt'), path.join(a.dir, 'results', 'hard.txt'));
  assert.equal(await rejectionCode(a.openRead('results/hard.txt')), 'PATH_HARDLINK');
  await link(path.join(a.dir, 'results', 'mine.txt'), path.join(a.dir, 'results', 'mine-too.txt'));
  assert.equal(await rejectionCode(a.openRead('results/mine.txt')), 'PATH_HARDLINK');
});

test('a FIFO, a socket, a device and a folder are refused as not regular files', async (t) => {
  const { a } = await setup(t);
  const results = path.join(a.dir, 'results');
  execFileSync('mkfifo', [path.join(results, 'pipe')]);
  assert.equal(await rejectionCode(a.openRead('results/pipe')), 'PATH_NOT_FILE');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path.join(results, 'sock'), resolve));
  t.after(() => server.close());
  assert.equal(await rejectionCode(a.openRead('results/sock')), 'PATH_NOT_FILE');
  assert.equal(await rejectionCode(a.openRead('results')), 'PATH_NOT_FILE');
  try {
    execFileSync('mknod', [path.join(results, 'null'), 'c', '1', '3'], { stdio: 'ignore' });
  } catch {
    t.skip('mknod is not permitted here (not root), so the device case cannot be set up');
    return;
  }
  assert.equal(await rejectionCode(a.openRead('results/null')), 'PATH_NOT_FILE');
});

test('a missing file is PATH_NOT_FOUND, and PATH_EXPIRED once retention logged it', async (t) => {
  const { a } = await setup(t);
  assert.equal(await rejectionCode(a.openRead('results/0001-x.jsonl')), 'PATH_NOT_FOUND');
  await writeFile(path.join(a.dir, '.expired.jsonl'), `${JSON.stringify({ path: 'results/0001-x.jsonl', expiredAt: '2026-01-01T00:00:00.000Z' })}\n{torn`);
  assert.equal(await rejectionCode(a.openRead('results/0001-x.jsonl')), 'PATH_EXPIRED');
});

test('the folder rule limits a path to the named top folders', async (t) => {
  const { a } = await setup(t);
  assert.equal(await rejectionCode(a.writeFile('results/x.json', '{}', { folders: ['args', 'scripts'] })), 'PATH_FOLDER_NOT_ALLOWED');
  assert.equal(await rejectionCode(a.writeFile('args', '{}', { folders: ['args'] })), 'PATH_FOLDER_NOT_ALLOWED');
  const written = await a.writeFile('args/sub/x.json', '{}', { folders: ['args'] });
  assert.equal(written.relative, 'args/sub/x.json');
  assert.equal(written.absolute, path.join(await realpath(a.dir), 'args', 'sub', 'x.json'));
});

test('writes never replace an existing file unless asked, and can pick a free name', async (t) => {
  const { a } = await setup(t);
  assert.equal(await rejectionCode(a.writeFile('results/mine.txt', 'new')), 'PATH_EXISTS');
  assert.equal((await a.writeFile('results/mine.txt', 'new', { pickFreeName: true })).relative, 'results/mine (2).txt');
  await a.writeFile('results/mine.txt', 'replaced', { overwrite: true });
  assert.equal(await readFile(path.join(a.dir, 'results', 'mine.txt'), 'utf8'), 'replaced');
  assert.ok((await readdir(path.join(a.dir, 'results'))).every((name) => !name.endsWith('.tmp')));
});
