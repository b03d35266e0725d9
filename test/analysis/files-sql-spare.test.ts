import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { analysisServices } from '../../src/tools/analysis/analysis-tools.js';
import { call, filesHost, ok, spillRows } from '../files/helpers.js';

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
