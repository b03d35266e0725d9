import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { SpillwayError } from '../../src/errors.js';
import { PostgresSource } from '../../src/sql/postgres-source.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { tempHost } from '../helpers/temp-host.js';

let server: TestPostgres | undefined;
let skipReason = '';

before(async () => {
  const availability = await startTestPostgres();
  if ('skip' in availability) skipReason = availability.skip;
  else server = availability.server;
  if (server === undefined) return;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('DROP TABLE IF EXISTS spillway_items; DROP SEQUENCE IF EXISTS spillway_seq');
  await admin.query('CREATE TABLE spillway_items (id integer PRIMARY KEY, name text, payload bytea, big bigint)');
  await admin.query("INSERT INTO spillway_items SELECT g, 'item ' || g, '\\x00ff'::bytea, 9007199254740993 FROM generate_series(1, 2500) AS g");
  await admin.query('CREATE SEQUENCE spillway_seq');
  await admin.end();
});

after(async () => {
  await server?.stop();
});

async function fingerprint(url: string): Promise<unknown> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const result = await admin.query(
      "SELECT count(*)::int AS n, md5(string_agg(id || name, ',' ORDER BY id)) AS digest, (SELECT last_value FROM spillway_seq) AS seq, (SELECT count(*)::int FROM pg_tables WHERE schemaname = 'public') AS tables FROM spillway_items",
    );
    return result.rows[0];
  } finally {
    await admin.end();
  }
}

const writeForms = [
  'DELETE FROM spillway_items',
  "INSERT INTO spillway_items (id, name) VALUES (99999, 'x')",
  "UPDATE spillway_items SET name = 'changed'",
  'WITH doomed AS (DELETE FROM spillway_items RETURNING *) SELECT count(*) FROM doomed',
  "WITH changed AS (UPDATE spillway_items SET name = 'x' RETURNING id) SELECT * FROM changed",
  'SELECT 1; DELETE FROM spillway_items',
  'CREATE TABLE spillway_extra (a int)',
  'DROP TABLE spillway_items',
  'TRUNCATE spillway_items',
  'VACUUM spillway_items',
  "SELECT nextval('spillway_seq')",
  'SELECT * INTO spillway_copy FROM spillway_items',
  "SELECT set_config('transaction_read_only', 'off', true), (SELECT count(*) FROM spillway_items)",
  'SET default_transaction_read_only = off',
  'COPY spillway_items TO STDOUT',
];

test('PostgreSQL: every write form is refused (by the read-only transaction itself, too) and nothing changes', async (t) => {
  if (server === undefined) return t.skip(skipReason);
  const url = server.url;
  const before = await fingerprint(url);
  for (const statementChecks of [true, false]) {
    const source = new PostgresSource({ url, statementChecks });
    try {
      for (const sql of writeForms) {
        await assert.rejects(
          source.query({ sql, maxRows: 10, timeoutMs: 10_000 }),
          (error: unknown) => {
            assert.ok(SpillwayError.is(error), `${sql}: ${String(error)}`);
            assert.ok(['SQL_READ_ONLY', 'SQL_ERROR'].includes(error.code), `${sql}: ${error.code} ${error.message}`);
            return true;
          },
          `${sql} (statement checks ${statementChecks ? 'on' : 'off'})`,
        );
      }
      // The session is still usable and still read-only.
      const rows = await source.query({ sql: 'SELECT count(*)::int AS n FROM spillway_items', maxRows: 10, timeoutMs: 10_000 });
      assert.deepEqual(rows.rows, [{ n: 2500 }]);
    } finally {
      await source.close();
    }
  }
  assert.deepEqual(await fingerprint(url), before);
});

test('PostgreSQL: true total, row limit, bytea as base64, errors with positions, timeout', async (t) => {
  if (server === undefined) return t.skip(skipReason);
  const env = await tempHost({ sql: { source: { type: 'postgres', url: server.url }, maxRows: 1000, timeoutMs: 2000 } });
  t.after(() => env.cleanup());
  const run = (sql: string) => env.host.execute({ name: 'query_sql', arguments: { sql } }, { conversationId: 'pg' });

  const limited = await run('SELECT id, name FROM spillway_items ORDER BY id DESC;');
  assert.equal(limited.isError, false, limited.text);
  assert.deepEqual(
    {
      total: limited.spill?.envelope?.fields.total,
      returned: limited.spill?.envelope?.fields.returned,
      limited: limited.spill?.envelope?.fields.limited,
      rows: limited.spill?.rows,
    },
    { total: 2500, returned: 1000, limited: true, rows: 1000 },
  );
  assert.match(limited.text, /1,000 of 2,500 rows returned/);

  const blob = await run('SELECT payload, big FROM spillway_items WHERE id = 1');
  const value = blob.value as { rows: Record<string, unknown>[]; binaryEncoding: Record<string, string> };
  assert.deepEqual(value.rows, [{ payload: Buffer.from([0, 255]).toString('base64'), big: '9007199254740993' }]);
  assert.deepEqual(value.binaryEncoding, { payload: 'base64' });

  const show = await run('SHOW transaction_read_only');
  assert.deepEqual((show.value as { rows: unknown[] }).rows, [{ transaction_read_only: 'on' }]);
  const explain = await run('EXPLAIN SELECT * FROM spillway_items');
  assert.equal(explain.isError, false, explain.text);

  const none = await run('SELECT id FROM spillway_items WHERE id < 0');
  assert.deepEqual((none.value as { total: number; rows: unknown[] }).rows, []);

  const error = await run('SELECT id,\n  nam FROM spillway_items');
  assert.equal(error.error?.code, 'SQL_ERROR');
  assert.match(error.text, /PostgreSQL error \(42703\): column "nam" does not exist at line 2, column 3/);

  const endless = await run('WITH RECURSIVE counter(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM counter) SELECT x FROM counter');
  assert.equal(endless.isError, false, endless.text);
  assert.deepEqual([endless.spill?.envelope?.fields.total, endless.spill?.envelope?.fields.totalAtLeast, endless.spill?.rows], [null, 1001, 1000]);

  const slow = await run('SELECT pg_sleep(30)');
  assert.equal(slow.error?.code, 'SQL_TIMEOUT');
  assert.match(slow.text, /PostgreSQL interrupted it/);
});

test('a PostgreSQL URL that does not answer gives a clear error', async (t) => {
  // Nothing listens on port 1 of 127.0.0.1; the connection is refused at once.
  const env = await tempHost({ sql: { source: { type: 'postgres', url: 'postgres://reader:secret@127.0.0.1:1/shop' } } });
  t.after(() => env.cleanup());
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1' } }, { conversationId: 'pg' });
  assert.equal(result.error?.code, 'SQL_SOURCE_UNAVAILABLE');
  assert.match(result.text, /PostgreSQL at postgres:\/\/reader:\*\*\*@127\.0\.0\.1:1\/shop did not accept a connection/);
  assert.match(result.text, /sql\.source\.url/);
  assert.doesNotMatch(result.text, /secret/);
});

test('a PostgreSQL server that accepts the connection but never answers fails the call after the timeout', async (t) => {
  // A TCP listener that says nothing: the PostgreSQL startup handshake never completes.
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const port = (silent.address() as net.AddressInfo).port;
  const env = await tempHost({ sql: { source: { type: 'postgres', url: `postgres://reader@127.0.0.1:${port}/shop` }, timeoutMs: 800 } });
  t.after(() => env.cleanup());
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1' } }, { conversationId: 'pg' });
  assert.equal(result.error?.code, 'SQL_SOURCE_UNAVAILABLE');
  assert.match(result.text, new RegExp(`PostgreSQL at postgres://reader@127\\.0\\.0\\.1:${port}/shop did not accept a connection within 800 ms`));
});
