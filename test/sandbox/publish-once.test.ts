import assert from 'node:assert/strict';
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { openOutput } from '../../src/files/pool/worker-output.js';
import type { OutputTarget } from '../../src/files/pool/worker-task.js';
import { jobMarkerName } from '../../src/sandbox/index.js';
import { isPublishTempName } from '../../src/sandbox/publish-leftovers.js';
import { tempHost } from '../helpers/temp-host.js';

/**
 * Exactly-once publishing of a job's file (publish-once.ts) at the file level:
 * each case is a state a killed run can leave, and what the next run of the
 * same job must do with it.
 */

const jobId = 'a'.repeat(20) + '0123456789ab';

async function setup(t: { after(fn: () => Promise<void>): void }) {
  const temp = await tempHost();
  t.after(() => temp.cleanup());
  const sandbox = temp.host.sandbox.conversation('c');
  const outputs = sandbox.folderPath('outputs');
  await mkdir(outputs, { recursive: true });
  const target: OutputTarget = { kind: 'sandbox', root: temp.sandboxRoot, principal: 'local', conversationId: 'c', filename: 'report.csv', onExisting: 'rename', jobId };
  const run = async (text: string) => {
    const output = await openOutput(target);
    output.pending.stream.write(text);
    return await output.commit();
  };
  const visible = async () => (await readdir(outputs)).filter((name) => !name.startsWith('.')).sort();
  return { outputs, run, visible };
}

test('the marker name has the shape of a publish temporary name (listings skip it, the sweep removes an old one)', () => {
  assert.ok(isPublishTempName(jobMarkerName(jobId)));
  assert.throws(() => jobMarkerName('../x'), /32 lowercase hex/);
});

test('a second run of a job whose file is published keeps that file and publishes nothing else', async (t) => {
  const { outputs, run, visible } = await setup(t);
  const first = await run('first\n');
  const second = await run('second\n');
  assert.equal(second.path, first.path);
  assert.deepEqual(await visible(), ['report.csv']);
  assert.equal(await readFile(path.join(outputs, 'report.csv'), 'utf8'), 'first\n');
  assert.ok(!(await readdir(outputs)).some((name) => name.endsWith('.tmp') && name !== jobMarkerName(jobId)), 'the second run left no temporary file');
});

test('a run killed between its marker and its link left no file of that inode: the next run publishes', async (t) => {
  const { outputs, run, visible } = await setup(t);
  // The marker names a file that was never linked.
  await writeFile(path.join(outputs, jobMarkerName(jobId)), JSON.stringify({ name: 'report.csv', dev: 1, ino: 1 }));
  const result = await run('data\n');
  assert.equal(path.basename(result.path), 'report.csv');
  assert.deepEqual(await visible(), ['report.csv']);
  const marker = JSON.parse(await readFile(path.join(outputs, jobMarkerName(jobId)), 'utf8')) as { name: string; ino: number };
  assert.equal(marker.ino, (await lstat(result.path)).ino, 'the marker now records the published file');
});

test("another file under the marker's name (someone else's export) is not mistaken for the job's: the job publishes beside it", async (t) => {
  const { outputs, run, visible } = await setup(t);
  await writeFile(path.join(outputs, 'report.csv'), 'not ours\n');
  const other = await lstat(path.join(outputs, 'report.csv'));
  await writeFile(path.join(outputs, jobMarkerName(jobId)), JSON.stringify({ name: 'report.csv', dev: other.dev, ino: other.ino + 1 }));
  const result = await run('ours\n');
  assert.equal(path.basename(result.path), 'report (2).csv');
  assert.equal(result.requestedName, 'report.csv');
  assert.deepEqual(await visible(), ['report (2).csv', 'report.csv']);
});

test('a marker that names a path outside its folder is ignored', async (t) => {
  const { outputs, run, visible } = await setup(t);
  await writeFile(path.join(outputs, jobMarkerName(jobId)), JSON.stringify({ name: '../results/x.csv', dev: 1, ino: 1 }));
  const result = await run('data\n');
  assert.equal(path.basename(result.path), 'report.csv');
  assert.deepEqual(await visible(), ['report.csv']);
});
