import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config/load-config.js';
import { discardSpareQueryChild, forkSpareQueryChild, SqliteSource } from '../../src/sql/sqlite-source.js';
import { warmSqlSource } from '../../src/sql/warm-sql-source.js';
import { capturedLogger } from '../helpers/captured-logger.js';

const started = 'started a SQLite query process';

async function database(t: TestContext): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-spare-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'data.sqlite');
  const db = new Database(file);
  db.exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);');
  db.close();
  return file;
}

function source(t: TestContext, file: string) {
  const { logger, lines } = capturedLogger();
  logger.level = 'debug';
  const sqlite = new SqliteSource({ file, kind: 'sqlite', logger });
  t.after(() => sqlite.close());
  return { sqlite, forks: () => lines.filter((line) => line.msg === started).length };
}

test('a spare child forked ahead of its source is adopted by the first source for that file, then forked anew as usual', async (t) => {
  const file = await database(t);
  forkSpareQueryChild(file);
  const first = source(t, file);
  const rows = await first.sqlite.query({ sql: 'SELECT x FROM t ORDER BY x', maxRows: 10, timeoutMs: 20_000 });
  assert.deepEqual(
    rows.rows.map((row) => row.x),
    [1, 2, 3],
  );
  assert.equal(first.forks(), 0, 'the spare answered: no child was forked for the query');

  // The spare is gone once adopted: the next source for the same file forks its own.
  const second = source(t, file);
  await second.sqlite.query({ sql: 'SELECT count(*) AS n FROM t', maxRows: 10, timeoutMs: 20_000 });
  assert.equal(second.forks(), 1);
});

test('a discarded spare (its file was rebuilt) is never used; warmSqlSource forks none for a file that is not there', async (t) => {
  const file = await database(t);
  forkSpareQueryChild(file);
  discardSpareQueryChild(file);
  const after = source(t, file);
  await after.sqlite.query({ sql: 'SELECT 1 AS one', maxRows: 10, timeoutMs: 20_000 });
  assert.equal(after.forks(), 1);

  const missing = path.join(path.dirname(file), 'missing.sqlite');
  warmSqlSource(loadConfig({ env: {}, overrides: { sql: { source: { type: 'sqlite', file: missing } } } }));
  const none = source(t, missing);
  await assert.rejects(none.sqlite.query({ sql: 'SELECT 1', maxRows: 1, timeoutMs: 20_000 }), { code: 'SQL_SOURCE_UNAVAILABLE' });
  assert.equal(none.forks(), 1, 'no spare existed for the missing file: the source forked (and reported) its own');
});
