import assert from 'node:assert/strict';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';
import { day, seedFile } from './seed-sandbox.js';

test('reading a swept spill through read_file says when it expired and to run the query again', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: makeRows(200) }) });
  const spilled = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'c1' });
  const spill = spilled.spill;
  assert.ok(spill !== undefined);
  // Visible expiry: the reference carries it, in the text and the metadata.
  assert.match(spilled.text, new RegExp(`expires ${spill.expiresAt.replace(/[.]/g, '\\.')}`));
  assert.equal(Date.parse(spill.expiresAt) - Date.parse(spill.createdAt), 7 * day);

  const absolute = path.join(env.host.sandbox.conversation('c1').dir, spill.path);
  const old = new Date(Date.now() - 8 * day);
  await utimes(absolute, old, old);
  await utimes(`${absolute}.meta.json`, old, old);
  const sweptAt = new Date();
  const report = await sweepSandbox({ root: env.sandboxRoot, olderThanMs: env.config.retention.days * day, now: () => sweptAt });
  assert.equal(report.deleted.files, 2);

  const read = await env.host.execute({ name: 'read_file', arguments: { path: spill.path } }, { conversationId: 'c1' });
  assert.equal(read.isError, true);
  assert.equal(read.error?.code, 'PATH_EXPIRED');
  assert.match(read.text, new RegExp(`expired on ${sweptAt.toISOString().replace(/[.]/g, '\\.')}`));
  assert.match(read.text, /run the query \(or tool\) again/);
  // A file that never existed is still a plain not-found.
  const missing = await env.host.execute({ name: 'read_file', arguments: { path: 'results/0099-none.jsonl' } }, { conversationId: 'c1' });
  assert.equal(missing.error?.code, 'PATH_NOT_FOUND');
});

test('list_files shows the expiry of every file that can expire, and none for outputs/', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const now = Date.now();
  await env.host.sandbox.conversation('c1').ensure();
  await seedFile(env.sandboxRoot, 'c1/scripts/s.js', 2, now);
  await seedFile(env.sandboxRoot, 'c1/outputs/report.csv', 30, now);
  const listed = await env.host.execute({ name: 'list_files', arguments: {} }, { conversationId: 'c1' });
  const files = (listed.value as { files: { path: string; expiresAt?: string; modifiedAt: string }[] }).files;
  const script = files.find((file) => file.path === 'scripts/s.js');
  const output = files.find((file) => file.path === 'outputs/report.csv');
  assert.equal(Date.parse(script?.expiresAt ?? '') - Date.parse(script?.modifiedAt ?? ''), 7 * day);
  assert.equal(output?.expiresAt, undefined);
});
