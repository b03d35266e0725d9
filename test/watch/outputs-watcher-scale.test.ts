import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { watchOutputs } from '../../src/watch/outputs-watcher.js';
import { startWatchers } from '../../src/watch/start-watchers.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

/** Conversations with `files` outputs each; returns their outputs/ folders. */
async function fill(env: TempHost, conversations: number, files: number): Promise<string[]> {
  const folders: string[] = [];
  for (let c = 0; c < conversations; c += 1) {
    const sandbox = env.host.sandbox.conversation(`conv-${c}`);
    await sandbox.ensure();
    const outputs = sandbox.folderPath('outputs');
    for (let f = 0; f < files; f += 1) await writeFile(path.join(outputs, `file-${f}.csv`), 'a\n1\n');
    folders.push(outputs);
  }
  return folders;
}

/** The folders from the sandbox root down to each outputs/ (whatever the layout's depth). */
function foldersOnTheWay(root: string, outputsFolders: string[]): number {
  const seen = new Set<string>([root]);
  for (let folder of outputsFolders) {
    while (folder !== root && !seen.has(folder)) {
      seen.add(folder);
      folder = path.dirname(folder);
    }
  }
  return seen.size;
}

function announcedFile(file: string) {
  let resolve!: (announced: boolean) => void;
  const decided = new Promise<boolean>((done) => (resolve = done));
  return { decided, onDecided: (absolute: string, announced: boolean) => absolute === file && resolve(announced) };
}

test('the watcher follows folders, not files: its watches do not grow with the number of outputs', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const outputs = await fill(env, 3, 200);
  const watcher = watchOutputs(env.host, { settleMs: 20 });
  t.after(() => watcher.close());
  assert.equal(watcher.health().ready, false);
  await watcher.ready;
  assert.deepEqual(watcher.health(), { ready: true, watchedFolders: foldersOnTheWay(env.sandboxRoot, outputs), polledFolders: 0, maxWatchedFolders: 4096 });
});

test('folders past watch.maxWatchedFolders are polled, and a file landing in one is still announced', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const outputs = await fill(env, 4, 2);
  const file = path.join(outputs[3] as string, 'late.csv');
  const waiting = announcedFile(file);
  const watcher = watchOutputs(env.host, { settleMs: 20, maxWatchedFolders: 2, pollIntervalMs: 100, onDecided: waiting.onDecided });
  t.after(() => watcher.close());
  await watcher.ready;
  const health = watcher.health();
  assert.equal(health.watchedFolders, 2);
  assert.equal(health.polledFolders, foldersOnTheWay(env.sandboxRoot, outputs) - 2);
  const announced: string[] = [];
  env.host.on('attachment', (event) => announced.push(`${event.conversationId}/${event.attachment.path}`));
  await writeFile(file, 'x\n1\n');
  assert.equal(await waiting.decided, true);
  assert.deepEqual(announced, ['conv-3/outputs/late.csv']);
});

test('a conversation made after start is followed, polled or not, and its first output announced', async (t) => {
  for (const maxWatchedFolders of [4096, 1]) {
    const env = await tempHost();
    t.after(() => env.cleanup());
    const sandbox = env.host.sandbox.conversation('fresh');
    const file = path.join(sandbox.folderPath('outputs'), 'sub', 'chart.png');
    const waiting = announcedFile(file);
    const watcher = watchOutputs(env.host, { settleMs: 20, maxWatchedFolders, pollIntervalMs: 100, onDecided: waiting.onDecided });
    t.after(() => watcher.close());
    await watcher.ready;
    await sandbox.ensure();
    await mkdir(path.dirname(file));
    await writeFile(file, 'png');
    assert.equal(await waiting.decided, true, `maxWatchedFolders ${maxWatchedFolders}`);
  }
});

test('serving does not wait for the outputs watcher: startWatchers resolves before its walk, /healthz shows when it is ready', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  await fill(env, 5, 20);
  const watchers = await startWatchers(env.host, {});
  // No I/O callback can have run between the walk's start and here: the walk is still going.
  assert.equal((env.host.health().outputsWatcher as { ready: boolean }).ready, false);
  await watchers.outputs.ready;
  assert.equal((env.host.health().outputsWatcher as { ready: boolean }).ready, true);
});
