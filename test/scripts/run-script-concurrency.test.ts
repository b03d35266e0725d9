import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { tempHost } from '../helpers/temp-host.js';
import { waitForFile } from '../helpers/wait-for.js';
import { runScript, scriptResult } from './helpers.js';

test('a busy script runs off the main thread: other calls finish while it spins', async (t) => {
  const env = await tempHost({
    workers: { poolSize: 2, maxQueue: 4, taskTimeoutMs: 600000 },
    script: { timeoutMs: 600000, memoryBytes: 64 * 1024 * 1024, stackBytes: 262144, maxReadBytes: 1 << 24, maxWriteBytes: 1 << 24, maxOutputChars: 100000 },
  });
  t.after(() => env.cleanup());
  // The spinning script only ends when it is cancelled, after the other two calls have
  // finished: so they finished while it spun (no race against its time limit).
  const controller = new AbortController();
  const spinning = env.host.execute({ name: 'run_script', arguments: { code: 'while (true) {}' } }, { conversationId: 'c1', signal: controller.signal });
  const listed = env.host.execute({ name: 'list_files', arguments: {} }, { conversationId: 'c2' });
  const quick = runScript(env.host, 'return 1 + 1;', { conversationId: 'c3' });
  const [list, second] = await Promise.all([listed, quick]);
  assert.equal(list.isError, false);
  assert.equal(scriptResult(second), 2);
  controller.abort();
  const spin = await spinning;
  assert.equal(spin.isError, true);
  assert.match(spin.text, /cancelled/);
});

test('calls beyond the worker pool and its queue are refused with SCRIPT_BUSY, and later calls work', async (t) => {
  const env = await tempHost({
    workers: { poolSize: 1, maxQueue: 1, taskTimeoutMs: 600000 },
    script: { timeoutMs: 2000, memoryBytes: 64 * 1024 * 1024, stackBytes: 262144, maxReadBytes: 1 << 24, maxWriteBytes: 1 << 24, maxOutputChars: 100000 },
  });
  t.after(() => env.cleanup());
  const running = runScript(env.host, 'while (true) {}');
  const queued = runScript(env.host, 'return "queued";');
  const refused = await runScript(env.host, 'return "refused";');
  assert.equal(refused.error?.code, 'SCRIPT_BUSY');
  assert.equal((await running).error?.code, 'SCRIPT_LIMIT');
  assert.equal(scriptResult(await queued), 'queued');
  assert.equal(scriptResult(await runScript(env.host, 'return "after";')), 'after');
});

test('closing the host stops a running script', async () => {
  const env = await tempHost({
    script: { timeoutMs: 60000, memoryBytes: 64 * 1024 * 1024, stackBytes: 262144, maxReadBytes: 1 << 24, maxWriteBytes: 1 << 24, maxOutputChars: 100000 },
  });
  // The script marks that it runs (a write goes through the main thread), then spins.
  const running = runScript(env.host, 'writeText("scripts/started.txt", "x"); while (true) {}');
  await waitForFile(path.join(env.host.sandbox.conversation('c1').dir, 'scripts', 'started.txt'));
  await env.cleanup();
  const result = await running;
  assert.equal(result.isError, true);
});

test('closing the host while the script worker is still starting settles the call and the close', async () => {
  const env = await tempHost({
    script: { timeoutMs: 60000, memoryBytes: 64 * 1024 * 1024, stackBytes: 262144, maxReadBytes: 1 << 24, maxWriteBytes: 1 << 24, maxOutputChars: 100000 },
  });
  const running = runScript(env.host, 'while (true) {}');
  // No wait: the worker thread is still loading QuickJS when the host closes.
  await new Promise((resolve) => setImmediate(resolve));
  await env.cleanup();
  const result = await running;
  assert.equal(result.isError, true);
});

test('a cancelled call stops its script, and the next call works', async (t) => {
  const env = await tempHost({
    script: { timeoutMs: 60000, memoryBytes: 64 * 1024 * 1024, stackBytes: 262144, maxReadBytes: 1 << 24, maxWriteBytes: 1 << 24, maxOutputChars: 100000 },
  });
  t.after(() => env.cleanup());
  const controller = new AbortController();
  const running = env.host.execute(
    { name: 'run_script', arguments: { code: 'writeText("scripts/started.txt", "x"); console.log("spinning"); while (true) {}' } },
    { conversationId: 'c1', signal: controller.signal },
  );
  // Cancel once the script has visibly started: its write reached the sandbox.
  await waitForFile(path.join(env.host.sandbox.conversation('c1').dir, 'scripts', 'started.txt'));
  controller.abort();
  const result = await running;
  assert.equal(result.isError, true);
  assert.match(result.text, /cancelled/);
  assert.equal(scriptResult(await runScript(env.host, 'return "next";')), 'next');
});
