import assert from 'node:assert/strict';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { ExecuteResult } from '../../src/host/host.js';
import { call, filesHost, spillRows } from '../files/helpers.js';
import { connectHttpClient } from '../helpers/http-client.js';

const tickets = Array.from({ length: 500 }, (_, index) => ({
  id: index + 1,
  user_id: (index % 50) + 1,
  country: ['DE', 'FR', 'NL'][index % 3],
  hours: index % 7,
}));
const users = Array.from({ length: 50 }, (_, index) => ({ id: index + 1, team: index % 2 === 0 ? 'red' : 'blue' }));

function value(result: ExecuteResult): { total: number; returned: number; limited: boolean; rows: Record<string, unknown>[] } {
  if (result.isError) throw new Error(`expected success: ${result.text}`);
  return result.value as { total: number; returned: number; limited: boolean; rows: Record<string, unknown>[] };
}

test('query_files over MCP joins two spills and aggregates; the result carries the true total', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'list_tickets', description: 'tickets', inputSchema: { type: 'object' }, handler: () => ({ value: tickets }) });
  env.host.registerTool({ name: 'list_users', description: 'users', inputSchema: { type: 'object' }, handler: () => ({ value: users }) });
  const { client } = await connectHttpClient(t, env.host);
  const spillOf = async (name: string) => ((await client.callTool({ name, arguments: {} }))._meta as Record<string, { path: string }>)['spillway/spill']?.path;
  const ticketsPath = await spillOf('list_tickets');
  const usersPath = await spillOf('list_users');
  assert.ok(ticketsPath && usersPath);

  const joined = await client.callTool({
    name: 'query_files',
    arguments: {
      sql: `SELECT u.team, t.country, count(*) AS n, sum(t.hours) AS hours FROM '${ticketsPath}' t JOIN '${usersPath}' u ON u.id = t.user_id GROUP BY ALL ORDER BY u.team, t.country`,
      label: 'tickets by team and country',
    },
  });
  assert.equal(joined.isError, false, JSON.stringify(joined.content));
  const text = (joined.content as { text: string }[])[0]?.text ?? '';
  const result = JSON.parse(text.slice(0, text.indexOf('\n\n[spillway]') > 0 ? text.indexOf('\n\n[spillway]') : undefined)) as {
    total: number;
    rows: { team: string; country: string; n: number; hours: number }[];
  };
  const expected = new Map<string, { n: number; hours: number }>();
  for (const ticket of tickets) {
    const key = `${users[ticket.user_id - 1]?.team}/${ticket.country}`;
    const entry = expected.get(key) ?? { n: 0, hours: 0 };
    entry.n += 1;
    entry.hours += ticket.hours;
    expected.set(key, entry);
  }
  assert.equal(result.total, expected.size);
  for (const row of result.rows) assert.deepEqual({ n: row.n, hours: row.hours }, expected.get(`${row.team}/${row.country}`));

  // Refusals come back over MCP as tool errors the model can act on.
  for (const [sql, words] of [
    ["SELECT * FROM read_text('/etc/passwd')", /only this conversation's own data files/],
    [`COPY (SELECT * FROM '${ticketsPath}') TO 'results/copy.csv'`, /query_files only reads/],
  ] as const) {
    const refused = await client.callTool({ name: 'query_files', arguments: { sql } });
    assert.equal(refused.isError, true);
    assert.match((refused.content as { text: string }[])[0]?.text ?? '', words);
  }
});

test('query_files: the row limit keeps the true total; a CSV in outputs/ can be queried; DESCRIBE and SUMMARIZE run', async (t) => {
  const env = await filesHost({ analysis: { maxRows: 100, timeoutMs: 60_000, memoryBytes: 268_435_456, threads: 1, maxConcurrent: 2, maxWaiting: 4 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, tickets);
  const limited = value(await call(env, 'query_files', { sql: `SELECT * FROM '${source}' ORDER BY id DESC` }));
  assert.deepEqual([limited.total, limited.returned, limited.limited], [500, 100, true]);
  assert.equal(limited.rows[0]?.id, 500);

  await mkdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs'), { recursive: true });
  await writeFile(path.join(env.host.sandbox.conversation('c1').dir, 'outputs', 'budget.csv'), 'team,budget\nred,10\nblue,20\n');
  const csv = value(await call(env, 'query_files', { sql: "SELECT sum(budget) AS total FROM 'outputs/budget.csv'" }));
  assert.equal(csv.rows[0]?.total, 30);
  const described = value(await call(env, 'query_files', { sql: `DESCRIBE SELECT * FROM '${source}'` }));
  assert.deepEqual(
    described.rows.map((row) => row.column_name),
    ['id', 'user_id', 'country', 'hours'],
  );
  value(await call(env, 'query_files', { sql: `SUMMARIZE SELECT * FROM '${source}'` }));
});

test('query_files (slow: every refused query runs in a DuckDB child of its own) refuses every way out of the conversation and every write, each with its code; nothing outside is read or written', async (t) => {
  const env = await filesHost({ analysis: { maxRows: 1000, timeoutMs: 60_000, memoryBytes: 67_108_864, threads: 1, maxConcurrent: 2, maxWaiting: 4 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, tickets);
  const foreign = await spillRows(env, [{ secret: 'other conversation' }], 'c2');
  const conversation = path.join(env.host.sandbox.conversation('c1').dir);
  const otherFile = path.join(env.host.sandbox.conversation('c2').dir, foreign);
  // A symlink planted in the folder (by anyone but spillway), pointing out.
  await symlink(otherFile, path.join(conversation, 'results', '9000-planted.jsonl'));
  await symlink('/etc/passwd', path.join(conversation, 'results', '9001-passwd.csv'));
  const before = (await readdir(path.join(conversation, 'results'))).sort();
  const beforeOther = (await readdir(path.join(env.host.sandbox.conversation('c2').dir, 'results'))).sort();

  const cases: [string, string][] = [
    ["SELECT * FROM '/etc/passwd'", 'SQL_FILE_REFUSED'],
    ["SELECT * FROM read_text('/etc/passwd')", 'SQL_FILE_REFUSED'],
    ["SELECT * FROM read_csv('/etc/passwd')", 'SQL_FILE_REFUSED'],
    [`SELECT * FROM '${otherFile}'`, 'SQL_FILE_REFUSED'],
    [`SELECT * FROM '../c2/${foreign}'`, 'SQL_FILE_REFUSED'],
    [`SELECT * FROM '${path.join(conversation, source)}/../../../c2/${foreign}'`, 'SQL_FILE_REFUSED'],
    ["SELECT * FROM 'results/9000-planted.jsonl'", 'SQL_FILE_REFUSED'],
    ["SELECT * FROM read_csv('results/9001-passwd.csv')", 'SQL_FILE_REFUSED'],
    ["SELECT * FROM 'results/*.jsonl'", 'SQL_FILE_REFUSED'],
    ["SELECT * FROM glob('/etc/*')", 'SQL_FILE_REFUSED'],
    ["SELECT * FROM 'https://example.com/data.csv'", 'SQL_FILE_REFUSED'],
    [`COPY (SELECT * FROM '${source}') TO 'results/copy.csv'`, 'SQL_READ_ONLY'],
    [`COPY (SELECT 1) TO '/tmp/spillway-query-files-escape.csv'`, 'SQL_READ_ONLY'],
    ["ATTACH 'results/x.duckdb' AS x", 'SQL_READ_ONLY'],
    ['INSTALL httpfs', 'SQL_READ_ONLY'],
    ['LOAD httpfs', 'SQL_READ_ONLY'],
    ['SET enable_external_access = true', 'SQL_READ_ONLY'],
    ["SET allowed_directories = ['/']", 'SQL_READ_ONLY'],
    ['CREATE TABLE t AS SELECT 1', 'SQL_READ_ONLY'],
    ["EXPORT DATABASE 'results/db'", 'SQL_READ_ONLY'],
    [`SELECT 1; COPY (SELECT 1) TO 'results/two.csv'`, 'SQL_READ_ONLY'],
    ["SELECT * FROM query('COPY (SELECT 1) TO ''results/q.csv''')", 'SQL_FILE_REFUSED'],
    ['SELEC 1', 'SQL_ERROR'],
    ["SELECT string_agg(repeat('x', 1000), '') FROM range(2000000)", 'SQL_LIMIT'],
  ];
  for (const [sql, code] of cases) {
    const result = await call(env, 'query_files', { sql });
    assert.equal(result.isError, true, `${sql} should fail: ${result.text.slice(0, 200)}`);
    assert.equal(result.error?.code, code, `${sql}: ${result.text.slice(0, 300)}`);
  }
  // A refusal names the files that can be queried.
  assert.match(
    (await call(env, 'query_files', { sql: "SELECT * FROM 'results/typo.jsonl'" })).text,
    new RegExp(`Files you can query: .*${source.replace(/[.]/g, '\\.')}`),
  );
  const after = (await readdir(path.join(conversation, 'results'))).filter((name) => !name.includes('query_files')).sort();
  assert.deepEqual(after, before, 'no file was written in the conversation (besides error spills)');
  assert.deepEqual((await readdir(path.join(env.host.sandbox.conversation('c2').dir, 'results'))).sort(), beforeOther);
  await assert.rejects(readdir('/tmp/spillway-query-files-escape.csv'));
  // And the conversation's own files still read.
  assert.equal(value(await call(env, 'query_files', { sql: `SELECT count(*) AS n FROM '${source}'` })).rows[0]?.n, 500);
});

test('a pathological cross join is stopped at the deadline while another conversation is served', async (t) => {
  const env = await filesHost({ analysis: { maxRows: 1000, timeoutMs: 8000, memoryBytes: 268_435_456, threads: 1, maxConcurrent: 2, maxWaiting: 4 } });
  t.after(() => env.cleanup());
  const big = await spillRows(
    env,
    Array.from({ length: 5000 }, (_, index) => ({ i: index })),
  );
  const small = await spillRows(env, tickets.slice(0, 10), 'c2');
  // 5,000³ = 125 billion rows: no machine finishes this within the deadline.
  const slow = call(env, 'query_files', { sql: `SELECT count(*) FROM '${big}' a, '${big}' b, '${big}' c WHERE a.i + b.i + c.i = -1` });
  const quick = await call(env, 'query_files', { sql: `SELECT count(*) AS n FROM '${small}'` }, 'c2');
  assert.equal(value(quick).rows[0]?.n, 10);
  const stopped = await slow;
  assert.equal(stopped.error?.code, 'SQL_TIMEOUT', stopped.text);
});

test('past analysis.maxConcurrent and analysis.maxWaiting a query is refused with SQL_BUSY instead of queueing without end', async (t) => {
  const env = await filesHost({ analysis: { maxRows: 1000, timeoutMs: 3000, memoryBytes: 268_435_456, threads: 1, maxConcurrent: 1, maxWaiting: 0 } });
  t.after(() => env.cleanup());
  const big = await spillRows(
    env,
    Array.from({ length: 5000 }, (_, index) => ({ i: index })),
  );
  const slow = `SELECT count(*) FROM '${big}' a, '${big}' b, '${big}' c WHERE a.i + b.i + c.i = -1`;
  // Started together: whichever takes the one slot, the other finds no room to wait.
  const results = await Promise.all([call(env, 'query_files', { sql: slow }), call(env, 'query_files', { sql: slow })]);
  const codes = results.map((result) => result.error?.code).sort();
  assert.deepEqual(codes, ['SQL_BUSY', 'SQL_TIMEOUT']);
  const busy = results.find((result) => result.error?.code === 'SQL_BUSY');
  assert.deepEqual(busy?.error?.details, { queue: 'query_files', running: 1, waiting: 0, limit: 1, reason: 'full' });
});
