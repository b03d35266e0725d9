import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { makeRows, tempHost } from '../helpers/temp-host.js';

const conversationId = 'c1';

async function setup(t: import('node:test').TestContext, overrides: Record<string, unknown> = {}) {
  const env = await tempHost(overrides);
  t.after(() => env.cleanup());
  const rows = makeRows(321);
  env.host.registerTool({ name: 'query', description: 'x', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const spilled = await env.host.execute({ name: 'query', arguments: {} }, { conversationId });
  const call = (name: string, args: Record<string, unknown>, id = conversationId) => env.host.execute({ name, arguments: args }, { conversationId: id });
  return { env, rows, path: spilled.spill!.path, call };
}

test('read_file returns numbered lines and reads the spilled rows back exactly', async (t) => {
  const { rows, path: spillPath, call } = await setup(t);
  const first = await call('read_file', { path: spillPath, limit: 3 });
  assert.equal(first.isError, false);
  const lines = first.text.split('\n');
  assert.equal(lines[0], `[${spillPath}: lines 1–3 of 321]`);
  assert.equal(lines[1], `     1\t${JSON.stringify(rows[0])}`);
  assert.match(first.text, /stopped at 3 lines; continue with offset=4/);
  const all: unknown[] = [];
  for (let offset = 1; offset <= 321;) {
    const page = await call('read_file', { path: spillPath, offset });
    const body = page.text.split('\n').filter((line) => /^\s+\d+\t/.test(line));
    for (const line of body) all.push(JSON.parse(line.slice(line.indexOf('\t') + 1)));
    offset += body.length;
  }
  assert.deepEqual(all, rows);
});

test('read_file caps characters and long lines, and says so', async (t) => {
  const { call, env } = await setup(t, { reread: { maxLines: 500, maxChars: 1000, maxLineChars: 50, maxMatches: 200, maxListEntries: 500 } });
  const sandbox = env.host.sandbox.conversation(conversationId);
  await writeFile(path.join(sandbox.dir, 'scripts', 'long.txt'), `${'a'.repeat(300)}\n${'b\n'.repeat(1000)}`);
  const result = await call('read_file', { path: 'scripts/long.txt' });
  assert.match(result.text, /… \[line cut: 300 characters\]/);
  assert.match(result.text, /stopped at the 1,000-character cap; continue with offset=\d+/);
  assert.ok(result.text.length < 1300);
});

test('read_file: past the end, empty, binary and text with a NUL character', async (t) => {
  const { call, env, path: spillPath } = await setup(t);
  const sandbox = env.host.sandbox.conversation(conversationId);
  assert.match((await call('read_file', { path: spillPath, offset: 999 })).text, /has 321 lines; offset 999 is past the end/);
  await writeFile(path.join(sandbox.dir, 'scripts', 'empty.txt'), '');
  assert.match((await call('read_file', { path: 'scripts/empty.txt' })).text, /is empty/);
  await writeFile(path.join(sandbox.dir, 'outputs', 'img.png'), Buffer.from([0x89, 0x50, 0, 0xff, 0xfe, 0, 1]));
  const binary = await call('read_file', { path: 'outputs/img.png' });
  assert.equal(binary.error?.code, 'PATH_NOT_FILE');
  assert.match(binary.text, /binary file/);
  await writeFile(path.join(sandbox.dir, 'scripts', 'nul.txt'), 'before\0after\nsecond é\n');
  const nul = await call('read_file', { path: 'scripts/nul.txt' });
  assert.equal(nul.isError, false);
  assert.match(nul.text, /before\0after/);
});

test("reread tools refuse escaping paths and another conversation's files", async (t) => {
  const { call, env, path: spillPath } = await setup(t);
  await env.host.execute({ name: 'query', arguments: {} }, { conversationId: 'c2' });
  const other = env.host.sandbox.conversation('c2');
  const mine = env.host.sandbox.conversation(conversationId);
  await symlink(other.dir, path.join(mine.dir, 'results', 'c2'));
  for (const [args, code] of [
    [{ path: `../c2/${spillPath}` }, 'PATH_TRAVERSAL'],
    [{ path: path.join(other.dir, spillPath) }, 'PATH_ABSOLUTE'],
    [{ path: `results/c2/${spillPath}` }, 'PATH_ESCAPES'],
    [{ path: 'results/none.jsonl' }, 'PATH_NOT_FOUND'],
  ] as const) {
    for (const tool of ['read_file', 'search_file']) {
      const result = await call(tool, tool === 'search_file' ? { ...args, pattern: 'x' } : { ...args });
      assert.equal(result.error?.code, code, `${tool} ${JSON.stringify(args)}`);
    }
  }
  assert.equal((await call('list_files', { dir: '../c2' })).error?.code, 'PATH_TRAVERSAL');
  assert.equal((await call('list_files', { dir: 'results/c2' })).error?.code, 'PATH_ESCAPES');
});

test('search_file finds lines by text or regex, caps matches, and says when nothing matched', async (t) => {
  const { call, path: spillPath } = await setup(t, { reread: { maxLines: 500, maxChars: 40000, maxLineChars: 2000, maxMatches: 5, maxListEntries: 500 } });
  const text = await call('search_file', { path: spillPath, pattern: '"name":"item-32"' });
  assert.match(text.text, /^\[1 matching line in results\/0001-query\.jsonl \(321 lines\)\]\n\s+32\t/);
  const regex = await call('search_file', { path: spillPath, pattern: 'item-3\\d"', regex: true });
  assert.match(regex.text, /\[10 matching lines .*; showing the first 5 \(cap reached; narrow the pattern\)\]/);
  assert.match((await call('search_file', { path: spillPath, pattern: 'nowhere' })).text, /No line of .* matches "nowhere"/);
  assert.equal((await call('search_file', { path: spillPath, pattern: '(', regex: true })).error?.code, 'INVALID_ARGUMENTS');
  const redos = await call('search_file', { path: spillPath, pattern: '(a+)+$', regex: true });
  assert.equal(redos.isError, false);
  // Counted repetitions that would cost seconds a line are refused before anything is read, by both search tools.
  const heavy = `${'(?:\\w*\\s*){1000}'.repeat(6)}X`;
  for (const [tool, args] of [
    ['search_file', { path: spillPath, pattern: heavy, regex: true }],
    ['search_files', { pattern: heavy, regex: true }],
  ] as const) {
    const refused = await call(tool, args);
    assert.equal(refused.error?.code, 'INVALID_ARGUMENTS', tool);
    assert.match(refused.text, /counted repetitions/, tool);
  }
});

test('list_files shows size, format, rows, columns and expiry; outputs never expire; the cap is noted', async (t) => {
  const { call, env, path: spillPath } = await setup(t, { reread: { maxLines: 500, maxChars: 40000, maxLineChars: 2000, maxMatches: 200, maxListEntries: 3 } });
  const sandbox = env.host.sandbox.conversation(conversationId);
  await writeFile(path.join(sandbox.dir, 'outputs', 'report.csv'), 'a,b\n');
  await mkdir(path.join(sandbox.dir, 'args', 'deep'));
  await writeFile(path.join(sandbox.dir, 'args', 'deep', 'x.json'), '{}');
  await writeFile(path.join(sandbox.dir, 'scripts', 'a.js'), '1');
  await writeFile(path.join(sandbox.dir, 'scripts', 'b.js'), '2');
  const all = (await call('list_files', {})).value as {
    files: { path: string; bytes: number; format: string; rows?: number; columns?: string[]; expiresAt?: string }[];
    note?: string;
  };
  assert.equal(all.files.length, 3);
  assert.equal(all.note, '2 more file(s) not listed (cap 3); list one folder with dir.');
  const spill = all.files.find((file) => file.path === spillPath);
  assert.equal(spill?.format, 'jsonl');
  assert.equal(spill?.rows, 321);
  assert.deepEqual(spill?.columns, ['id', 'name', 'amount', 'active', 'note']);
  assert.ok(spill?.expiresAt);
  const outputs = (await call('list_files', { dir: 'outputs' })).value as { files: { path: string; expiresAt?: string; format: string }[] };
  assert.deepEqual(
    outputs.files.map((file) => [file.path, file.format, file.expiresAt]),
    [['outputs/report.csv', 'csv', undefined]],
  );
});
