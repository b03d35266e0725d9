import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { tempHost } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';

test('a large result spills as a table and reports the true total beside the rows', async (t) => {
  const env = await tempHost({ demo: { rows: 3000, seed: 11 } });
  t.after(() => env.cleanup());
  const sql = "SELECT id, ts, amount, label FROM transactions WHERE label = 'genuine' ORDER BY id";
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql, label: 'genuine' } }, { conversationId: 'c1' });
  assert.equal(result.isError, false, result.text);
  const db = new Database(path.join(env.config.data.dir, 'demo.sqlite'), { readonly: true });
  const expected = db.prepare("SELECT count(*) FROM transactions WHERE label = 'genuine'").pluck().get() as number;
  db.close();
  assert.ok(expected > 2000);
  assert.equal(result.spill?.format, 'jsonl');
  assert.equal(result.spill?.rows, expected);
  assert.deepEqual(result.spill?.columns, ['id', 'ts', 'amount', 'label']);
  assert.deepEqual(result.spill?.envelope?.fields, {
    label: 'genuine',
    total: expected,
    returned: expected,
    limited: false,
    summary: `${expected.toLocaleString('en-US')} rows, all returned.`,
  });
  const lines = (await readFile(path.join(env.host.sandbox.conversation('c1').dir, result.spill!.path), 'utf8')).trimEnd().split('\n');
  assert.equal(lines.length, expected);
  assert.equal(JSON.parse(lines[0] as string).label, 'genuine');
});

test('the row limit is said plainly and the total is the database count over the whole match', async (t) => {
  const env = await tempHost({ demo: { rows: 3000, seed: 11 }, sql: { maxRows: 100 } });
  t.after(() => env.cleanup());
  const result = await env.host.execute(
    { name: 'query_sql', arguments: { sql: 'SELECT * FROM transactions ORDER BY amount DESC;' } },
    { conversationId: 'c1' },
  );
  assert.equal(result.isError, false, result.text);
  const fields = result.spill?.envelope?.fields;
  assert.equal(fields?.total, 3000);
  assert.equal(fields?.returned, 100);
  assert.equal(fields?.limited, true);
  assert.match(String(fields?.summary), /^100 of 3,000 rows returned/);
  assert.match(result.text, /100 of 3,000 rows returned/);
  assert.equal(result.spill?.rows, 100);
  // Sorted by the database before the limit: the first row is the largest amount.
  const first = JSON.parse((await readFile(path.join(env.host.sandbox.conversation('c1').dir, result.spill!.path), 'utf8')).split('\n')[0] as string);
  const db = new Database(path.join(env.config.data.dir, 'demo.sqlite'), { readonly: true });
  assert.equal(first.amount, db.prepare('SELECT max(amount) FROM transactions').pluck().get());
  db.close();

  // Statements that cannot sit in a subquery are counted as they stream.
  const pragma = await env.host.execute({ name: 'query_sql', arguments: { sql: 'PRAGMA table_info(transactions)' } }, { conversationId: 'c1' });
  assert.equal(pragma.isError, false, pragma.text);
  assert.equal((pragma.value as { total: number }).total, 11);
});

test('0 rows is a plain answer with the column names', async (t) => {
  const env = await tempHost({ demo: { rows: 500, seed: 1 } });
  t.after(() => env.cleanup());
  const result = await env.host.execute(
    { name: 'query_sql', arguments: { sql: "SELECT id, amount FROM transactions WHERE label = 'nope'" } },
    { conversationId: 'c1' },
  );
  assert.equal(result.isError, false);
  assert.deepEqual(result.value, { total: 0, returned: 0, limited: false, summary: 'The query matched no rows.', columns: ['id', 'amount'], rows: [] });
  // Query results always spill (spill.tools.query_sql.thresholdChars is 0 by default), even an empty one.
  assert.equal(result.spill?.format, 'json');
});

test('a query that runs too long is interrupted, and the next query still works', async (t) => {
  const env = await tempHost({ demo: { rows: 500, seed: 1 }, sql: { timeoutMs: 1000 } });
  t.after(() => env.cleanup());
  const endless = 'WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter) SELECT count(*) FROM counter';
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql: endless } }, { conversationId: 'c1' });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'SQL_TIMEOUT');
  assert.match(result.text, /longer than 1,000 ms \(sql\.timeoutMs\) and was interrupted/);
  const next = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM accounts' } }, { conversationId: 'c1' });
  assert.equal(next.isError, false, next.text);
  assert.deepEqual((next.value as { rows: unknown[] }).rows, [{ n: 50 }]);
});

test('a cancelled call interrupts its query', async (t) => {
  const env = await tempHost({ demo: { rows: 500, seed: 1 } });
  t.after(() => env.cleanup());
  const controller = new AbortController();
  const endless = 'WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter) SELECT count(*) FROM counter';
  const pending = env.host.execute({ name: 'query_sql', arguments: { sql: endless } }, { conversationId: 'c1', signal: controller.signal });
  setTimeout(() => controller.abort(), 500);
  const result = await pending;
  assert.equal(result.error?.code, 'SQL_TIMEOUT');
  assert.match(result.text, /cancelled/);
});

test('SQL errors name the database error and its position', async (t) => {
  const env = await tempHost({ demo: { rows: 500, seed: 1 } });
  t.after(() => env.cleanup());
  const missing = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT id,\n  amout\nFROM transactions' } }, { conversationId: 'c1' });
  assert.equal(missing.error?.code, 'SQL_ERROR');
  assert.match(missing.text, /SQLite error \(SQLITE_ERROR\): no such column: amout at line 2, column 3/);
  assert.deepEqual({ line: missing.error?.details?.line, column: missing.error?.details?.column }, { line: 2, column: 3 });
  const syntax = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT id FROM transactions WHERE WHERE id = 1' } }, { conversationId: 'c1' });
  assert.equal(syntax.error?.code, 'SQL_ERROR');
  // The second WHERE is the culprit, not the first.
  assert.match(syntax.text, /near "WHERE": syntax error at line 1, column 35/);
  const comma = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT id, amount,\nFROM transactions' } }, { conversationId: 'c1' });
  assert.match(comma.text, /near "FROM": syntax error at line 2, column 1/);
  const typo = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELEC 1' } }, { conversationId: 'c1' });
  assert.equal(typo.error?.code, 'SQL_ERROR');
  assert.match(typo.text, /cannot start with SELEC/);
});

test('BLOB columns come back as base64 and the result says so', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const file = path.join(env.dir, 'blobs.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT, data BLOB, big INTEGER)');
  db.prepare('INSERT INTO files VALUES (?, ?, ?, ?)').run(1, 'a.bin', Buffer.from([0, 255, 16, 32]), 2n ** 62n);
  db.close();
  const other = await tempHost({ sql: { source: { type: 'sqlite', file } } });
  t.after(() => other.cleanup());
  const result = await other.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT * FROM files' } }, { conversationId: 'c1' });
  assert.equal(result.isError, false, result.text);
  const value = result.value as { rows: Record<string, unknown>[]; notes: string[]; binaryEncoding: Record<string, string> };
  assert.equal(value.rows[0]?.data, Buffer.from([0, 255, 16, 32]).toString('base64'));
  assert.equal(value.rows[0]?.big, (2n ** 62n).toString());
  assert.deepEqual(value.binaryEncoding, { data: 'base64' });
  assert.ok(value.notes.some((note) => /"data" are given as base64/.test(note)));
  assert.ok(value.notes.some((note) => /decimal strings/.test(note)));

  const repeated = await other.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT id, id, name, id FROM files' } }, { conversationId: 'c1' });
  const renamed = repeated.value as { rows: Record<string, unknown>[]; notes: string[] };
  assert.deepEqual(renamed.rows, [{ id: 1, id_2: 1, name: 'a.bin', id_3: 1 }]);
  assert.deepEqual(renamed.notes, ['Repeated column names were renamed: "id" → "id_2", "id" → "id_3". Alias columns (AS) to choose names.']);
});

test('a configured SQLite file that is missing or corrupt gets a clear error and is never created or repaired', async (t) => {
  const { dir, cleanup } = await tempHost();
  t.after(() => cleanup());
  const missingFile = path.join(dir, 'missing.sqlite');
  const missing = await tempHost({ sql: { source: { type: 'sqlite', file: missingFile } } });
  t.after(() => missing.cleanup());
  const first = await missing.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1' } }, { conversationId: 'c1' });
  assert.equal(first.error?.code, 'SQL_SOURCE_UNAVAILABLE');
  assert.match(first.text, /missing\.sqlite cannot be used: the file does not exist/);
  assert.match(first.text, /sql\.source\.file/);
  assert.equal(existsSync(missingFile), false);

  const corruptFile = path.join(dir, 'corrupt.sqlite');
  const garbage = Buffer.from('this is not a database, just some text '.repeat(200));
  await writeFile(corruptFile, garbage);
  const corrupt = await tempHost({ sql: { source: { type: 'sqlite', file: corruptFile } } });
  t.after(() => corrupt.cleanup());
  const second = await corrupt.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1' } }, { conversationId: 'c1' });
  assert.equal(second.error?.code, 'SQL_SOURCE_UNAVAILABLE');
  assert.match(second.text, /is not a SQLite database/);
  assert.deepEqual(await readFile(corruptFile), garbage);
});

function queryChildren(): string[] {
  const listing = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'pid=,stat=,args='], { encoding: 'utf8' });
  return listing.split('\n').filter((line) => line.includes('sqlite-query-child') && !/\sZ/.test(line));
}

test('the SQL source closes with the host: no query process outlives it', async () => {
  const env = await tempHost({ demo: { rows: 200, seed: 3 } });
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1 AS one' } }, { conversationId: 'c1' });
  assert.equal(result.isError, false);
  assert.equal(queryChildren().length, 1, 'one warm query process while the host is open');
  await env.cleanup();
  // SIGKILL is delivered at once; the kernel takes the process away soon after (checked until it has).
  await waitFor(() => queryChildren().length === 0, 'the query process to go away');
  assert.deepEqual(queryChildren(), []);
});

test('a configuration reload that names another database is followed by the next query', async (t) => {
  const env = await tempHost({ demo: { rows: 300, seed: 2 } });
  t.after(() => env.cleanup());
  const first = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM transactions' } }, { conversationId: 'c1' });
  assert.deepEqual((first.value as { rows: unknown[] }).rows, [{ n: 300 }]);
  const file = path.join(env.dir, 'other.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE transactions (id INTEGER); INSERT INTO transactions VALUES (1), (2)');
  db.close();
  env.host.updateConfig({ ...env.config, sql: { ...env.config.sql, source: { type: 'sqlite', file } } });
  const second = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM transactions' } }, { conversationId: 'c1' });
  assert.deepEqual((second.value as { rows: unknown[] }).rows, [{ n: 2 }]);
});

test('when the rows come back but counting them all outlasts the timeout, the rows are kept and the total is said to be unknown', async (t) => {
  const env = await tempHost({ demo: { rows: 300, seed: 2 }, sql: { maxRows: 100, timeoutMs: 1500 } });
  t.after(() => env.cleanup());
  // A first query starts the query process, so the timed query's first 100 rows cost microseconds
  // and only its endless count meets the timeout, however loaded the machine.
  const warm = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1 AS one' } }, { conversationId: 'c1' });
  assert.equal(warm.isError, false, warm.text);
  const endless = 'WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter) SELECT x FROM counter';
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql: endless } }, { conversationId: 'c1' });
  assert.equal(result.isError, false, result.text);
  const fields = result.spill?.envelope?.fields;
  assert.equal(fields?.total, null);
  assert.equal(fields?.totalAtLeast, 101);
  assert.equal(fields?.returned, 100);
  assert.equal(fields?.limited, true);
  assert.match(String(fields?.summary), /counting them all took too long, so the total is unknown/);
  assert.equal(result.spill?.rows, 100);
  // The interrupted process is replaced: the next query works.
  const next = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM transactions' } }, { conversationId: 'c1' });
  assert.deepEqual((next.value as { rows: unknown[] }).rows, [{ n: 300 }]);
});
