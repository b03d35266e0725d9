import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { searchFilesPieceChars } from '../../src/tools/reread/search-files.js';
import { call, filesHost } from '../files/helpers.js';
import type { TempHost } from '../helpers/temp-host.js';

interface SearchValue {
  summary: string;
  matches: { file: string; line: number; text: string }[];
  filesSearched: number;
  bytesRead: number;
  notes?: string[];
}

async function conversationDir(env: TempHost): Promise<string> {
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  return sandbox.dir;
}

async function search(env: TempHost, args: Record<string, unknown>): Promise<SearchValue> {
  // A large answer spills like any result; the structured value is the whole of it when it fits inline.
  const result = await call(env, 'search_files', args);
  if (result.isError) throw new Error(result.text);
  return result.value as SearchValue;
}

/** 50 files in results/ and args/ (JSONL, text, JSON) with "ACME" planted at known lines. */
async function plant(env: TempHost): Promise<{ file: string; line: number }[]> {
  const dir = await conversationDir(env);
  const expected: { file: string; line: number }[] = [];
  for (let index = 0; index < 50; index += 1) {
    const folder = index % 5 === 0 ? 'args' : 'results';
    const extension = ['jsonl', 'txt', 'json'][index % 3] ?? 'txt';
    const name = `${folder}/${String(index + 1).padStart(4, '0')}-tool.${extension}`;
    const lines: string[] = [];
    for (let line = 1; line <= 40; line += 1) {
      const hit = (line * 7 + index) % 13 === 0;
      lines.push(
        extension === 'jsonl'
          ? JSON.stringify({ id: line, title: `t${line}`, body: hit ? `order for ACME corp ${line}` : `other ${line}` })
          : hit
            ? `ACME line ${line}`
            : `plain ${line}`,
      );
      if (hit) expected.push({ file: name, line });
    }
    await writeFile(path.join(dir, name), `${lines.join('\n')}\n`);
  }
  expected.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return expected;
}

test('search_files across 50 files finds every planted match, sorted by file and line', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const expected = await plant(env);
  const found = await search(env, { pattern: 'ACME', limit: 1000 });
  assert.deepEqual(
    found.matches.map(({ file, line }) => ({ file, line })),
    expected,
  );
  assert.equal(found.filesSearched, 50);
  assert.equal(found.notes, undefined);
  assert.match(found.summary, new RegExp(`^${expected.length} matching lines in 50 of 50 files searched`));

  const regex = await search(env, { pattern: 'ACME (corp|line) 1[0-9]\\b', regex: true, limit: 1000 });
  assert.ok(regex.matches.length > 0 && regex.matches.every((match) => /ACME (corp|line) 1\d\b/.test(match.text)));

  const jsonlOnly = await search(env, { pattern: 'ACME', glob: 'results/*.jsonl', limit: 1000 });
  assert.deepEqual(
    jsonlOnly.matches.map(({ file, line }) => ({ file, line })),
    expected.filter((match) => match.file.startsWith('results/') && match.file.endsWith('.jsonl')),
  );
  const argsOnly = await search(env, { pattern: 'ACME', dir: 'args', limit: 1000 });
  assert.ok(argsOnly.matches.length > 0 && argsOnly.matches.every((match) => match.file.startsWith('args/')));
  assert.equal(argsOnly.filesSearched, 10);
});

test('field searches only that JSONL field: a title that holds the text is not a match', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const dir = await conversationDir(env);
  await writeFile(
    path.join(dir, 'results/0001-rows.jsonl'),
    [{ title: 'ACME in the title', body: 'nothing' }, { title: 'x', body: 'ACME in the body' }, { title: 'y' }].map((row) => JSON.stringify(row)).join('\n'),
  );
  await writeFile(path.join(dir, 'results/0002-notes.txt'), 'ACME in a text file\n');
  const found = await search(env, { pattern: 'ACME', field: 'body' });
  assert.deepEqual(found.matches, [{ file: 'results/0001-rows.jsonl', line: 2, text: 'ACME in the body' }]);
});

test('search_files stops at its match cap and says so', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const expected = await plant(env);
  const found = await search(env, { pattern: 'ACME', limit: 10 });
  assert.deepEqual(
    found.matches.map(({ file, line }) => ({ file, line })),
    expected.slice(0, 10),
  );
  assert.match(found.notes?.join(' ') ?? '', /Stopped early: the match cap was reached \(10;/);
});

test('search_files stops at its byte cap (64 MiB read) with a note (slow: writes a 65 MiB file)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const dir = await conversationDir(env);
  const line = `${'x'.repeat(1023)}\n`;
  await writeFile(path.join(dir, 'results/0001-big.txt'), Buffer.from(line.repeat(65 * 1024)));
  await writeFile(path.join(dir, 'results/0002-after.txt'), 'ACME after the big file\n');
  const found = await search(env, { pattern: 'ACME' });
  assert.deepEqual(found.matches, []);
  assert.equal(found.bytesRead, 64 * 1024 * 1024);
  assert.match(found.notes?.join(' ') ?? '', /the byte cap was reached \(64 MiB read; results\/0001-big\.txt was searched only in part\)/);
});

test('a line longer than 64 KiB is matched in pieces, and a match across a cut is still found', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const dir = await conversationDir(env);
  const before = 'y'.repeat(searchFilesPieceChars - 3);
  await writeFile(path.join(dir, 'results/0001-long.txt'), `short\n${before}NEEDLE${'z'.repeat(100_000)}\nend NEEDLE\n`);
  const found = await search(env, { pattern: 'NEEDLE' });
  assert.deepEqual(
    found.matches.map(({ file, line }) => ({ file, line })),
    [
      { file: 'results/0001-long.txt', line: 2 },
      { file: 'results/0001-long.txt', line: 3 },
    ],
  );
  assert.match(found.matches[0]?.text ?? '', /\[part of line 2, which is over 64 KiB\]$/);
});

test('paths stay inside the conversation: a symlink is never followed, another conversation is never searched, bad arguments are refused', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const dir = await conversationDir(env);
  const outside = path.join(env.dir, 'outside');
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, 'secret.txt'), 'ACME outside\n');
  await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'results/0001-link.txt'));
  await symlink(outside, path.join(dir, 'results/linked-dir'));
  const other = env.host.sandbox.conversation('c2');
  await other.ensure();
  await writeFile(path.join(other.dir, 'results/0001-x.txt'), 'ACME in c2\n');
  await writeFile(path.join(dir, 'results/0002-own.txt'), 'ACME own\n');
  const found = await search(env, { pattern: 'ACME' });
  assert.deepEqual(found.matches, [{ file: 'results/0002-own.txt', line: 1, text: 'ACME own' }]);

  for (const args of [
    { pattern: 'ACME', dir: 'results', glob: '*.txt' },
    { pattern: 'ACME', glob: '../c2/**' },
    { pattern: 'ACME', dir: '../c2' },
    { pattern: '(a)\\1', regex: true },
  ]) {
    const refused = await call(env, 'search_files', args);
    assert.equal(refused.isError, true, JSON.stringify(args));
  }
});

test('search_files results are screened and spill like any result', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const dir = await conversationDir(env);
  await writeFile(path.join(dir, 'args/0001-notes.txt'), 'ACME key AKIAIOSFODNN7EXAMPLE\n');
  const result = await call(env, 'search_files', { pattern: 'ACME' });
  assert.equal(result.spill?.format, 'jsonl');
  assert.doesNotMatch(result.text, /AKIAIOSFODNN7EXAMPLE/);
  assert.equal(result.screening?.secrets, 1);
});
