import assert from 'node:assert/strict';
import { homedir, tmpdir } from 'node:os';
import { test } from 'node:test';
import fc from 'fast-check';
import { DuckDBInstance, JsonDuckDBValueConverter } from '@duckdb/node-api';
import { knownRowBytes, measuredColumns } from '../../src/analysis/cell-bytes.js';
import { refuseRevealingCalls } from '../../src/analysis/revealing-calls.js';
import { rowBytes } from '../../src/sql/row-bytes.js';
import type { ExecuteResult } from '../../src/host/host.js';
import { call, filesHost, spillRows } from '../files/helpers.js';

const mib = 1024 * 1024;

/** The host process's resident size now, and the highest it has been (RUSAGE_SELF: the DuckDB children are not counted). */
function rss(): { now: number; peak: number } {
  return { now: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024 };
}

function valueOf(result: ExecuteResult): Record<string, unknown> {
  if (result.isError) throw new Error(`expected success: ${result.text}`);
  return result.value as Record<string, unknown>;
}

test('query_files caps bytes in the DuckDB process: a 300 MB value is refused, 100,000 rows of 5 KB are cut at analysis.maxBytes, another conversation is served, and the host grows less than 200 MB (slow: DuckDB builds the values)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const maxBytes = env.config.analysis.maxBytes;
  assert.equal(maxBytes, 16 * mib, 'the default analysis.maxBytes');
  // Warm up: the first query loads what every later one shares.
  assert.equal(valueOf(await call(env, 'query_files', { sql: 'SELECT 1 AS one' }, 'c2')).returned, 1);
  const before = rss();

  const huge = call(env, 'query_files', { sql: "SELECT repeat('x', 300000000) AS big" });
  const cheap = await call(env, 'query_files', { sql: 'SELECT 1 AS one' }, 'c2');
  assert.deepEqual(valueOf(cheap).rows, [{ one: 1 }]);
  const refused = await huge;
  assert.equal(refused.error?.code, 'RESULT_TOO_LARGE', refused.text);
  assert.equal(refused.error?.details?.limit, 'analysis.maxBytes');
  assert.equal(refused.error?.details?.maxBytes, maxBytes);
  assert.match(refused.text, /analysis\.maxBytes/);
  assert.match(refused.text, /substr/);

  const many = call(env, 'query_files', { sql: "SELECT i, repeat('y', 5000) AS pad FROM range(100000) t(i)" });
  const cheapAgain = await call(env, 'query_files', { sql: 'SELECT 2 AS two' }, 'c2');
  assert.deepEqual(valueOf(cheapAgain).rows, [{ two: 2 }]);
  const cut = await many;
  assert.equal(cut.isError, false, cut.text.slice(0, 2000));
  // The result is larger than the model sees whole: its counts and summary lead the text.
  const field = (name: string) => new RegExp(`"${name}":([^,]*),`).exec(cut.text)?.[1];
  assert.equal(field('cutAtBytes'), String(maxBytes), cut.text.slice(0, 2000));
  assert.equal(field('limited'), 'true');
  assert.equal(field('total'), 'null');
  const returned = Number(field('returned'));
  assert.ok(returned > 0 && returned < 100_000, `returned ${returned}`);
  // As query_sql measures rows: every returned row costs about 5 KB, and all of them fit in the cap.
  assert.ok(returned * 5000 <= maxBytes, `returned ${returned}`);
  assert.equal(Number(field('totalAtLeast')), returned + 1);
  assert.match(
    cut.text,
    new RegExp(`${returned.toLocaleString('en-US')} rows returned: the result was cut at 16 MiB \\(the byte limit, analysis\\.maxBytes\\)`),
  );
  // The cut result still spilled to a file the model can query further.
  assert.equal(cut.spill?.format, 'jsonl');

  const after = rss();
  const growth = after.peak - before.now;
  assert.ok(growth < 200 * mib, `the host's RSS peaked ${Math.round(growth / mib)} MiB above where it started`);
});

test('a row that alone passes analysis.maxBytes is refused with RESULT_TOO_LARGE; rows under the cap are all returned', async (t) => {
  const env = await filesHost({ analysis: { maxBytes: 64 * 1024 } });
  t.after(() => env.cleanup());
  const small = valueOf(await call(env, 'query_files', { sql: "SELECT i, repeat('a', 100) AS s FROM range(50) t(i)" }));
  assert.deepEqual([small.total, small.returned, small.limited, small.cutAtBytes], [50, 50, false, undefined]);
  // A long value measured from DuckDB's string header, and one built of many short values (a list): both refused.
  for (const sql of ["SELECT repeat('b', 100000) AS s", "SELECT list_transform(range(20000), x -> 'abcdef') AS l"]) {
    const refused = await call(env, 'query_files', { sql });
    assert.equal(refused.error?.code, 'RESULT_TOO_LARGE', `${sql}: ${refused.text}`);
    assert.equal(refused.error?.details?.row, 1);
    assert.equal(refused.error?.details?.limit, 'analysis.maxBytes');
  }
  // The long text is measured from DuckDB's string header (its UTF-8 bytes), before a JS string of it exists.
  const header = await call(env, 'query_files', { sql: "SELECT 1 AS n, repeat('é', 40000) AS s" });
  assert.equal(header.error?.details?.bytes, 80_000);
  // The byte cap cuts before the row cap: the total is then unknown, and the result says so.
  const cut = valueOf(await call(env, 'query_files', { sql: "SELECT i, repeat('c', 1000) AS s FROM range(1000) t(i)" }));
  assert.equal(cut.cutAtBytes, 64 * 1024);
  assert.equal(cut.total, null);
  assert.ok((cut.returned as number) < 64);
});

/** Every text a result carries, for a search for host paths. */
function everything(result: ExecuteResult): string {
  return `${result.text}\n${JSON.stringify(result.value ?? null)}\n${JSON.stringify(result.error ?? null)}`;
}

test("query_files (slow: every refused query runs in a DuckDB child of its own) shows no host path: DuckDB's settings and catalog are refused, and error messages name files by sandbox path", async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [{ a: 1 }, { a: 2 }]);
  // Something has been read, so DuckDB's file caches have an entry to show if they could.
  assert.equal(valueOf(await call(env, 'query_files', { sql: `SELECT sum(a) AS s FROM '${source}'` })).total, 1);
  const hostPaths = [env.sandboxRoot, env.host.sandbox.conversation('c1').dir, tmpdir(), homedir()].filter((folder) => folder.length > 1);
  const refusedProbes = [
    "SELECT current_setting('allowed_paths')",
    `SELECT "CURRENT_SETTING"('home_directory')`,
    "SELECT system.main.current_setting('temp_directory')",
    "SELECT current_setting /* a comment */ ('secret_directory')",
    "SELECT current_setting('file_search_path')",
    'SELECT * FROM duckdb_settings()',
    "FROM duckdb_settings() WHERE name = 'allowed_paths'",
    'SELECT * FROM pg_catalog.pg_settings',
    'SELECT * FROM pg_settings',
    'SELECT * FROM duckdb_extensions()',
    'SELECT * FROM duckdb_databases()',
    'SELECT * FROM duckdb_databases',
    'SELECT * FROM pragma_database_list',
    'SELECT * FROM duckdb_external_file_cache()',
    'SELECT * FROM duckdb_temporary_files()',
    "SELECT * FROM query('SELECT current_setting(''allowed_paths'')')",
    "SELECT * FROM query('SELECT ' || 'current' || '_setting(''allowed_paths'')')",
    "SELECT * FROM query_table('pg_settings')",
    "SELECT getenv('HOME')",
    "SELECT * FROM which_secret('s3://bucket/x', 's3')",
    "SUMMARIZE SELECT current_setting('allowed_paths') AS p",
    "WITH s AS (SELECT current_setting('allowed_paths') AS p) SELECT * FROM s",
  ];
  for (const sql of refusedProbes) {
    const result = await call(env, 'query_files', { sql });
    assert.equal(result.error?.code, 'SQL_FILE_REFUSED', `${sql}: ${result.text}`);
    for (const folder of hostPaths) assert.ok(!everything(result).includes(folder), `${sql} shows ${folder}: ${everything(result)}`);
  }
  // Errors DuckDB raises about real files, and queries that run: no host path either.
  const otherProbes = [
    `SELECT * FROM read_csv('${source}', columns = {'a': 'DATE'})`,
    `SELECT * FROM read_parquet('${source}')`,
    // DuckDB repeats the path as written: an absolute one comes back sandbox-relative.
    `SELECT * FROM read_parquet('${env.host.sandbox.conversation('c1').dir}/${source}')`,
    "SELECT * FROM 'results/none.jsonl'",
    `SELECT filename FROM read_text('${source}')`,
    `SELECT * FROM read_json('${source}', filename = true)`,
    'SELECT current_database(), current_schema()',
    'SELECT version()',
  ];
  for (const sql of otherProbes) {
    const result = await call(env, 'query_files', { sql });
    for (const folder of hostPaths) assert.ok(!everything(result).includes(folder), `${sql} shows ${folder}: ${everything(result)}`);
  }
  // A column or a text that merely holds such a word is data, not a call.
  const data = valueOf(await call(env, 'query_files', { sql: `SELECT 'current_setting(x)' AS query, a AS "current_setting" FROM '${source}' ORDER BY a` }));
  assert.deepEqual(data.rows, [
    { query: 'current_setting(x)', current_setting: 1 },
    { query: 'current_setting(x)', current_setting: 2 },
  ]);
});

test('property: a revealing call is refused however it is cased, quoted, qualified or padded with comments; inside a string it is text', () => {
  const names = ['current_setting', 'getenv', 'query', 'query_table', 'json_execute_serialized_sql', 'which_secret', 'duckdb_settings', 'pragma_database_list'];
  const mixCase = (name: string, flips: boolean[]) => [...name].map((char, index) => (flips[index % flips.length] ? char.toUpperCase() : char)).join('');
  const gaps = fc.constantFrom('', ' ', '\n', '/* c */', '/* a /* nested */ b */', '--x\n');
  fc.assert(
    fc.property(
      fc.constantFrom(...names),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      fc.constantFrom('', 'main.', 'system.main.'),
      gaps,
      gaps,
      (name, flips, quoted, qualifier, before, after) => {
        const written = quoted ? `"${mixCase(name, flips)}"` : mixCase(name, flips);
        const sql = `SELECT${before === '' ? ' ' : before}${qualifier}${written}${after}('x')`;
        assert.throws(() => refuseRevealingCalls(sql), { code: 'SQL_FILE_REFUSED' }, sql);
        // The same text in a string literal (plain, E'' or dollar-quoted) is data.
        for (const literal of [`'${sql.replace(/'/g, "''")}'`, `$q$${sql}$q$`]) refuseRevealingCalls(`SELECT ${literal} AS t`);
      },
    ),
  );
});

test("property: the size read from DuckDB's vectors before converting a row is never more than rowBytes of the converted row (so it refuses or cuts only rows the byte cap would)", async () => {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('a', 'é', '€', '😀'),
        fc.constantFrom(0, 1, 12, 13, 4095, 4096, 4097, 4100, 12_288, 12_289, 20_000),
        fc.integer({ min: 0, max: 3000 }),
        fc.boolean(),
        async (char, repeat, items, isNull) => {
          const text = isNull ? 'NULL::VARCHAR' : `repeat('${char}', ${repeat})`;
          const result = await connection.stream(`SELECT ${text} AS s, 'x'::BLOB AS b, range(${items}) AS l, [${text}] AS nested`);
          const chunk = await result.fetchChunk();
          assert.ok(chunk !== null);
          const typeIds = result.columnNames().map((_, index) => result.columnTypeId(index));
          const known = knownRowBytes(chunk, 0, measuredColumns(typeIds));
          const measured = rowBytes(chunk.convertRowValues(0, JsonDuckDBValueConverter), 0);
          assert.ok(known <= measured, `${text}, ${items} items: known ${known} > measured ${measured}`);
          if (!isNull && char === 'a' && repeat > 12_288) assert.ok(known >= repeat, 'a long text is measured by its bytes');
        },
      ),
      { numRuns: 60 },
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});
