import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SpillwayError } from '../../src/errors.js';
import { SqliteSource } from '../../src/sql/sqlite-source.js';
import { tempHost } from '../helpers/temp-host.js';

/** Every way a statement could try to write, each with what SQLite itself must answer when the text checks are off. */
function writeForms(dir: string): { name: string; sql: string }[] {
  const attached = path.join(dir, 'attached.sqlite');
  const vacuumed = path.join(dir, 'vacuumed.sqlite');
  return [
    { name: 'DELETE', sql: 'DELETE FROM transactions' },
    { name: 'DELETE with a comment hiding nothing', sql: '/* read */ DELETE FROM transactions WHERE id > 0 -- all' },
    { name: 'INSERT', sql: "INSERT INTO accounts (account_id, name, country, opened, risk_score) VALUES ('X', 'x', 'DE', '2020-01-01', 1)" },
    { name: 'REPLACE', sql: "REPLACE INTO accounts (account_id, name, country, opened, risk_score) VALUES ('AC000001', 'x', 'DE', '2020-01-01', 1)" },
    { name: 'UPDATE', sql: 'UPDATE transactions SET amount = 0' },
    { name: 'UPDATE … RETURNING', sql: "UPDATE transactions SET label = 'genuine' WHERE label = 'fraud' RETURNING id" },
    {
      name: 'CTE wrapping an UPDATE',
      sql: 'WITH doomed AS (SELECT id FROM transactions) UPDATE transactions SET amount = 0 WHERE id IN (SELECT id FROM doomed)',
    },
    {
      name: 'CTE wrapping a DELETE … RETURNING',
      sql: 'WITH doomed AS (SELECT id FROM transactions LIMIT 5) DELETE FROM transactions WHERE id IN (SELECT id FROM doomed) RETURNING *',
    },
    { name: 'ATTACH', sql: `ATTACH DATABASE '${attached}' AS other` },
    { name: 'PRAGMA writable_schema', sql: 'PRAGMA writable_schema = ON' },
    { name: 'PRAGMA user_version(…)', sql: 'PRAGMA user_version(42)' },
    { name: 'PRAGMA query_only off', sql: 'PRAGMA query_only = OFF' },
    { name: 'multiple statements', sql: 'SELECT 1; DELETE FROM transactions' },
    { name: 'multiple statements after a string with a semicolon', sql: "SELECT ';'; DROP TABLE accounts" },
    { name: 'VACUUM', sql: 'VACUUM' },
    { name: 'VACUUM INTO', sql: `VACUUM INTO '${vacuumed}'` },
    { name: 'CREATE TABLE', sql: 'CREATE TABLE extra (a)' },
    { name: 'CREATE TEMP TABLE', sql: 'CREATE TEMP TABLE scratch AS SELECT * FROM transactions' },
    { name: 'CREATE INDEX', sql: 'CREATE INDEX by_amount ON transactions(amount)' },
    { name: 'DROP TABLE', sql: 'DROP TABLE accounts' },
    { name: 'ALTER TABLE', sql: 'ALTER TABLE accounts ADD COLUMN extra TEXT' },
    { name: 'BEGIN', sql: 'BEGIN IMMEDIATE' },
    { name: 'REINDEX', sql: 'REINDEX' },
    { name: 'ANALYZE', sql: 'ANALYZE' },
  ];
}

async function fingerprint(file: string): Promise<{ hash: string; mtimeMs: number; counts: unknown }> {
  const bytes = await readFile(file);
  const db = new Database(file, { readonly: true });
  try {
    const counts = db
      .prepare(
        'SELECT (SELECT count(*) FROM transactions) AS transactions, (SELECT count(*) FROM accounts) AS accounts, (SELECT total(amount) FROM transactions) AS amount',
      )
      .get();
    return { hash: createHash('sha256').update(bytes).digest('hex'), mtimeMs: (await stat(file)).mtimeMs, counts };
  } finally {
    db.close();
  }
}

test('query_sql refuses every write form on the demo database, and no write reaches the file', async (t) => {
  const env = await tempHost({ demo: { rows: 2000, seed: 7 } });
  t.after(() => env.cleanup());
  const warm = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM transactions' } }, { conversationId: 'ro' });
  assert.equal(warm.isError, false, warm.text);
  const file = path.join(env.config.data.dir, 'demo.sqlite');
  const before = await fingerprint(file);

  for (const form of writeForms(env.dir)) {
    const result = await env.host.execute({ name: 'query_sql', arguments: { sql: form.sql } }, { conversationId: 'ro' });
    assert.equal(result.isError, true, `${form.name} was not refused: ${result.text}`);
    assert.ok(result.error?.code === 'SQL_READ_ONLY' || result.error?.code === 'SQL_ERROR', `${form.name}: ${result.error?.code}`);
    assert.match(result.text, /read|statement|error/i);
  }
  // After the attempts, the connection still reads (and PRAGMA query_only = OFF did not run).
  const after = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT count(*) AS n FROM transactions' } }, { conversationId: 'ro' });
  assert.equal(after.isError, false);
  assert.deepEqual(await fingerprint(file), before);
  assert.equal(existsSync(path.join(env.dir, 'attached.sqlite')), false);
  assert.equal(existsSync(path.join(env.dir, 'vacuumed.sqlite')), false);
});

test('with the text checks switched off, SQLite itself refuses each write form (read-only connection, statement verdicts)', async (t) => {
  const env = await tempHost({ demo: { rows: 2000, seed: 7 } });
  t.after(() => env.cleanup());
  await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1' } }, { conversationId: 'ro' });
  const file = path.join(env.config.data.dir, 'demo.sqlite');
  const before = await fingerprint(file);
  const source = new SqliteSource({ file, kind: 'demo', statementChecks: false });
  t.after(() => source.close());

  for (const form of writeForms(env.dir)) {
    await assert.rejects(
      source.query({ sql: form.sql, maxRows: 100, timeoutMs: 20_000 }),
      (error: unknown) => {
        assert.ok(SpillwayError.is(error), `${form.name}: ${String(error)}`);
        // SQL_READ_ONLY: SQLite's readonly/reader verdict; SQL_ERROR: SQLite refused to prepare it (one statement only, no such syntax).
        assert.ok(['SQL_READ_ONLY', 'SQL_ERROR'].includes(error.code), `${form.name}: ${error.code} ${error.message}`);
        return true;
      },
      form.name,
    );
  }
  const rows = await source.query({ sql: 'SELECT count(*) AS n FROM transactions', maxRows: 10, timeoutMs: 20_000 });
  assert.equal(rows.rows[0]?.n, 2000);
  assert.deepEqual(await fingerprint(file), before);
  assert.equal(existsSync(path.join(env.dir, 'attached.sqlite')), false);
  assert.equal(existsSync(path.join(env.dir, 'vacuumed.sqlite')), false);
});
