import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { analysisServices } from '../../src/tools/analysis/analysis-tools.js';
import { maxWarmUpBytes } from '../../src/analysis/files-sql-engine.js';
import { call, filesHost, ok, outputPath, spillRows } from '../files/helpers.js';

test('a served host loads DuckDB when its front is up, so the first query_files call finds a spare; a host that is not served forks none', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const { engine } = analysisServices(env.host);
  const prepared: string[] = [];
  const prepareTool = env.host.prepareTool.bind(env.host);
  env.host.prepareTool = (name) => {
    prepared.push(name);
    prepareTool(name);
  };
  assert.equal(engine.hasSpare(), false, 'nothing is forked before the host serves (a one-shot CLI call never pays for DuckDB)');
  env.host.emit('serving');
  assert.equal(engine.hasSpare(), true, "the 'serving' event forks the spare");
  await engine.prepare();
  assert.equal(engine.hasSpare(), true, 'the spare loaded DuckDB, ran its warm-up query and waits');
  assert.ok(prepared.includes('query_files'), "query_files' argument schema is compiled once the host serves, not in its first call");
  assert.deepEqual(
    readdirSync(tmpdir()).filter((name) => name.startsWith('spillway-duckdb-warm-')),
    [],
    "the warm-up's files are gone once the spare is ready",
  );

  // The host's own query_files engine (wired the same way by the builtin tools) answers after the event too.
  const source = await spillRows(env, [
    { region: 'north', amount: 2 },
    { region: 'south', amount: 3 },
  ]);
  const result = await call(env, 'query_files', { sql: `SELECT sum(amount) AS total FROM '${source}'` });
  assert.equal(result.isError, false, result.text);
  assert.deepEqual((ok(result) as unknown as { rows: unknown }).rows, [{ total: 5 }]);
});

test('the next spare warms up for the size of the files the last query could read, capped; the first knows none', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const { engine } = analysisServices(env.host);
  env.host.emit('serving');
  assert.equal(engine.spareWarmUpBytes(), 0, 'before any query there is no size to warm up for');
  await engine.prepare();

  const rows = Array.from({ length: 3000 }, (_, index) => ({ id: index, note: `row ${index} of a table of some width` }));
  const source = await spillRows(env, rows);
  const largest = statSync(outputPath(env, source)).size;
  assert.ok(largest > 100_000, `the spill is large enough to tell apart (${largest} bytes)`);
  // This engine's own query (analysisServices makes an engine of its own beside the host's).
  const sandbox = env.host.sandbox.conversation('c1');
  const result = await engine.query({
    sandbox,
    sql: `SELECT count(*) AS n FROM '${source}'`,
    maxRows: 10,
    timeoutMs: 60_000,
    memoryBytes: 256 << 20,
    threads: 1,
  });
  assert.deepEqual(result.rows, [{ n: 3000 }]);
  assert.equal(engine.spareWarmUpBytes(), largest, "the spare forked after the call reads as much as that call's largest file");
  await engine.prepare();
  assert.equal(engine.hasSpare(), true, 'a spare with a long warm-up becomes ready like any other');
  assert.ok(maxWarmUpBytes >= 32 * 1024 * 1024 && maxWarmUpBytes <= 64 * 1024 * 1024, 'the cap covers the read buffers of a large spill, no more');
});
