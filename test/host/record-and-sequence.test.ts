import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { createHost } from '../../src/runtime/create-host.js';
import { makeRows, tempConfig, tempHost } from '../helpers/temp-host.js';

test('a spill after the sweep never reuses the number of a swept file', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: makeRows(50) }) });
  // The conversation's results/ is empty, but the sweep logged that 0007 existed once.
  const conversation = path.join(env.host.sandbox.conversation('c-seq').dir);
  await mkdir(path.join(conversation, 'results'), { recursive: true });
  await writeFile(path.join(conversation, '.expired.jsonl'), `${JSON.stringify({ path: 'results/0007-rows.jsonl', expiredAt: '2026-11-01T00:00:00.000Z' })}\n`);
  const result = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'c-seq' });
  assert.equal(result.spill?.path, 'results/0008-rows.jsonl');
});

test('an execution record that cannot be written is logged and never fails the call', async (t) => {
  const { config, dir } = await tempConfig();
  t.after(() => rm(dir, { recursive: true, force: true }));
  // data.dir is a file, so records.jsonl cannot be created under it.
  await writeFile(config.data.dir, 'not a folder');
  const warnings: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') warnings.push(String((JSON.parse(line) as { msg: unknown }).msg));
      done();
    },
  });
  const host = await createHost({ config, logger: pino({ level: 'warn' }, stream) });
  t.after(() => host.close());
  host.registerTool({ name: 'echo', description: 'echo', inputSchema: { type: 'object' }, handler: () => ({ value: 'hello' }) });
  const first = await host.execute({ name: 'echo', arguments: {} }, { conversationId: 'c-rec' });
  const second = await host.execute({ name: 'echo', arguments: {} }, { conversationId: 'c-rec' });
  assert.equal(first.isError, false);
  assert.equal(second.text, 'hello');
  await new Promise((resolve) => setImmediate(resolve));
  // Logged once for the episode, counted at /healthz for each record.
  assert.equal(warnings.filter((warning) => warning === 'execution record could not be written').length, 1, `warnings: ${warnings.join(' | ')}`);
  assert.deepEqual(host.health().records, { written: 0, dropped: 2, failing: true, lastError: 'EEXIST', repairedBytes: 0 });
  assert.equal(await readFile(config.data.dir, 'utf8'), 'not a folder');
});
