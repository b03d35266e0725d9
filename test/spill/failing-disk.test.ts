import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeRows, tempHost } from '../helpers/temp-host.js';

const fixture = fileURLToPath(new URL('../fixtures/spill-under-file-size-limit.js', import.meta.url));

test('results/ unusable (a file in its place): the call succeeds with the result and no path', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(100);
  env.host.registerTool({ name: 'rows', description: 'x', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  // Root ignores permission bits, so make the folder impossible instead of read-only.
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  await rm(sandbox.folderPath('results'), { recursive: true });
  await writeFile(sandbox.folderPath('results'), 'not a folder');
  const result = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'c1' });
  assert.equal(result.isError, false);
  assert.equal(result.spill, undefined);
  assert.deepEqual(result.value, rows);
  assert.match(result.text, /could not be saved to a file, so no path is available/);
  assert.deepEqual(JSON.parse(result.text.slice(0, result.text.indexOf('\n\n[spillway]'))), rows);
  assert.deepEqual((await readdir(sandbox.dir)).sort(), ['args', 'errors', 'outputs', 'results', 'scripts']);
  // The host keeps serving, and spills again once the folder is back.
  await rm(sandbox.folderPath('results'));
  await sandbox.ensure();
  const { mkdir } = await import('node:fs/promises');
  await mkdir(sandbox.folderPath('results'));
  const again = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'c1' });
  assert.equal(again.spill?.rows, 100);
});

test('the disk fills up in the middle of a spill: the call succeeds, no file appears under a real name, no temp file is left', (t) => {
  try {
    execFileSync('bash', ['-c', 'ulimit -f 64'], { stdio: 'ignore' });
  } catch {
    t.skip('bash with ulimit is not available to simulate a full disk');
    return;
  }
  // 64 blocks of 1 KiB: the 4 MB spill fails part-way with EFBIG, like ENOSPC.
  const run = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" "${fixture}"`], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout) as {
    isError: boolean;
    spill: unknown;
    textStart: string;
    textEnd: string;
    textLength: number;
    bigLength: number;
    files: string[];
    nextCallOk: boolean;
  };
  assert.equal(report.isError, false);
  assert.equal(report.spill, null);
  assert.equal(report.textStart, 'data line\ndata line\ndata line\n');
  assert.match(report.textEnd, /Showing lines 1–[\d,]+ of 400,001; the rest was not saved/);
  // EFBIG (the file-size limit) is a disk fault like any unexpected errno: the model is told its code.
  assert.match(report.textEnd, /could not be saved to a file \(DISK_IO: the file system failed\), so no path is available/);
  assert.deepEqual(report.files, ['args', 'errors', 'outputs', 'results', 'scripts']);
  assert.equal(report.nextCallOk, true);
  void path;
});
