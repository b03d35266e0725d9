// The DuckDB child's view of a conversation's files (src/analysis/pinned-view.ts): files are
// opened and checked first, and DuckDB opens names that lead to those descriptors, so a file
// swapped for a symlink (or a folder swapped for one) after the check is never followed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync, linkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { pinView, releaseView, removeViewFolders, viewFolderPrefix } from '../../src/analysis/pinned-view.js';

const linux = process.platform === 'linux';

function folders(t: { after(fn: () => void): void }) {
  const base = mkdtempSync(path.join(tmpdir(), 'spillway-pin-test-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const conversation = path.join(base, 'conversation');
  const outside = path.join(base, 'outside');
  for (const folder of [path.join(conversation, 'results'), path.join(conversation, 'outputs'), outside]) mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(outside, 'secret.jsonl'), '{"s":"SECRET-OUTSIDE"}\n');
  return { conversation, outside };
}

test(
  'a file swapped for a symlink after it was pinned is still read as the file that was checked, by DuckDB too',
  { skip: !linux && 'reads /proc/self/fd' },
  async (t) => {
    const { conversation, outside } = folders(t);
    const file = path.join(conversation, 'results', 'x.jsonl');
    writeFileSync(file, '{"s":"inside"}\n');
    const view = pinView(conversation, [{ path: file }]);
    t.after(() => releaseView(view));
    assert.equal(view.paths.length, 1);
    // The swap: a symlink to a file outside renamed over the checked one.
    symlinkSync(path.join(outside, 'secret.jsonl'), `${file}.swap`);
    renameSync(`${file}.swap`, file);
    assert.equal(readFileSync(path.join(view.folder, 'results', 'x.jsonl'), 'utf8'), '{"s":"inside"}\n');
    const instance = await DuckDBInstance.create(':memory:');
    t.after(() => instance.closeSync());
    const connection = await instance.connect();
    await connection.run(`SET allowed_paths = ['${view.paths[0]}']`);
    await connection.run('SET enable_external_access = false');
    const read = await connection.runAndReadAll(`SELECT s FROM read_json('${view.paths[0]}')`);
    assert.deepEqual(read.getRowsJS(), [['inside']]);
  },
);

test('a symlink, a file under a symlinked folder, a FIFO and a hard-linked file are left out of the view', { skip: !linux && 'reads /proc/self/fd' }, (t) => {
  const { conversation, outside } = folders(t);
  const plain = path.join(conversation, 'results', 'plain.jsonl');
  writeFileSync(plain, '{}\n');
  const link = path.join(conversation, 'results', 'link.jsonl');
  symlinkSync(path.join(outside, 'secret.jsonl'), link);
  const viaFolder = path.join(conversation, 'outputs', 'secret.jsonl');
  rmSync(path.join(conversation, 'outputs'), { recursive: true });
  symlinkSync(outside, path.join(conversation, 'outputs'));
  const fifo = path.join(conversation, 'results', 'pipe.jsonl');
  execFileSync('mkfifo', [fifo]);
  const hardLinked = path.join(conversation, 'results', 'twice.jsonl');
  writeFileSync(hardLinked, '{}\n');
  linkSync(hardLinked, path.join(outside, 'twice.jsonl'));
  const view = pinView(
    conversation,
    [plain, link, viaFolder, fifo, hardLinked, path.join(outside, 'secret.jsonl')].map((file) => ({ path: file })),
  );
  t.after(() => releaseView(view));
  assert.deepEqual(view.paths, [path.join(view.folder, 'results', 'plain.jsonl')]);
  assert.deepEqual([...view.byOriginal.keys()], [plain]);
});

test(
  'a file pinned for writing is written where it was checked, even once its folder is swapped for a symlink',
  { skip: !linux && 'reads /proc/self/fd' },
  (t) => {
    const { conversation, outside } = folders(t);
    const output = path.join(conversation, 'outputs', '.out.parquet.tmp');
    writeFileSync(output, '');
    const view = pinView(conversation, [{ path: output, write: true }]);
    t.after(() => releaseView(view));
    const name = view.byOriginal.get(output) ?? '';
    renameSync(path.join(conversation, 'outputs'), path.join(conversation, 'outputs-moved'));
    symlinkSync(outside, path.join(conversation, 'outputs'));
    writeFileSync(name, 'exported');
    assert.equal(readFileSync(path.join(conversation, 'outputs-moved', '.out.parquet.tmp'), 'utf8'), 'exported');
    assert.deepEqual(readdirSync(outside).sort(), ['secret.jsonl'], 'nothing was written outside');
  },
);

test('a released view leaves nothing; the folders of a killed child are removed by its pid', { skip: !linux && 'reads /proc/self/fd' }, (t) => {
  const { conversation } = folders(t);
  const file = path.join(conversation, 'results', 'x.jsonl');
  writeFileSync(file, '{}\n');
  const released = pinView(conversation, [{ path: file }]);
  releaseView(released);
  assert.equal(existsSync(released.folder), false);
  // As a child killed at its deadline leaves it: the parent removes it by the child's pid.
  const left = pinView(conversation, [{ path: file }]);
  assert.ok(path.basename(left.folder).startsWith(viewFolderPrefix(process.pid)));
  removeViewFolders(process.pid);
  assert.equal(existsSync(left.folder), false);
  releaseView(left);
});
