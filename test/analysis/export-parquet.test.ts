import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetThreads } from '../../src/tools/analysis/export-parquet.js';
import { call, filesHost, ok, spillRows } from '../files/helpers.js';

const rows = Array.from({ length: 300 }, (_, index) => ({
  id: index + 1,
  country: ['DE', 'FR', 'NL'][index % 3],
  amount: index % 5 === 0 ? null : index * 1.5,
  note: `row "${index}"`,
}));

test('export_table format parquet writes the selection (columns, headers, sort, range) as a Parquet file that reads back exactly', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  const result = await call(env, 'export_table', {
    source,
    format: 'parquet',
    columns: ['id', { name: 'amount', header: 'Amount (EUR)' }],
    sort: [{ column: 'amount', direction: 'desc' }],
    range: { start: 10, count: 50 },
    filename: 'top-amounts',
  });
  const value = ok(result);
  assert.equal(value.path, 'outputs/top-amounts.parquet');
  assert.equal(value.rows, 50);
  assert.equal(result.attachments[0]?.mimeType, 'application/vnd.apache.parquet');

  const expected = rows
    .filter((row) => row.amount !== null)
    .sort((a, b) => (b.amount as number) - (a.amount as number))
    .slice(10, 60)
    .map((row) => [row.id, row.amount]);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const read = await connection.runAndReadAll(`SELECT * FROM '${path.join(env.host.sandbox.conversation('c1').dir, 'outputs', 'top-amounts.parquet')}'`);
  assert.deepEqual(read.columnNames(), ['id', 'Amount (EUR)']);
  assert.deepEqual(
    read.getRowsJS().map(([id, amount]) => [Number(id), amount]),
    expected,
  );
  instance.closeSync();

  // query_files reads the export back; a taken name gets a new one.
  const again = ok(await call(env, 'export_table', { source, format: 'parquet', filename: 'top-amounts.parquet' }));
  assert.equal(again.path, 'outputs/top-amounts (2).parquet');
  const counted = ok(await call(env, 'query_files', { sql: "SELECT count(*) AS n FROM 'outputs/top-amounts (2).parquet'" })) as unknown as {
    rows: { n: number }[];
  };
  assert.equal(counted.rows[0]?.n, 300);
});

test('export_table parquet refuses bad paths and names, and leaves no temporary file behind', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, rows);
  assert.equal((await call(env, 'export_table', { source: '/etc/passwd', format: 'parquet' })).error?.code, 'PATH_ABSOLUTE');
  assert.equal((await call(env, 'export_table', { source: '../c2/results/x.jsonl', format: 'parquet' })).error?.code, 'PATH_TRAVERSAL');
  assert.equal((await call(env, 'export_table', { source, format: 'parquet', filename: '../x.parquet' })).error?.code, 'INVALID_ARGUMENTS');
  assert.equal((await call(env, 'export_table', { source, format: 'parquet', columns: ['nope'] })).error?.code, 'SQL_ERROR');
  assert.deepEqual(await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs')).catch(() => []), []);
});

test('a Parquet export may use the file-building pool’s threads: workers.poolSize, one per core for 0, never fewer than analysis.threads', () => {
  assert.equal(parquetThreads(1, 4), 4);
  assert.equal(parquetThreads(8, 2), 8);
  assert.equal(parquetThreads(1, 0), Math.max(1, availableParallelism()));
  assert.equal(parquetThreads(1, 500), 64);
});
