import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Config } from '../../src/config/schema.js';
import { tempHost } from '../helpers/temp-host.js';

function withScriptTimeout(config: Config, timeoutMs: number): Config {
  return { ...config, script: { ...config.script, timeoutMs } };
}

test('a description given as a function is resolved against the running configuration, and a reload that changes it emits tools-changed', async (t) => {
  const env = await tempHost({}, { builtins: false });
  t.after(() => env.cleanup());
  env.host.registerTool({
    name: 'slow',
    description: (config) => `Stops after ${config.script.timeoutMs} ms.`,
    annotations: (config) => ({ title: 'Slow', openWorldHint: config.sql.source.type === 'postgres' }),
    inputSchema: { type: 'object' },
    handler: () => ({ value: 'ok' }),
  });
  env.host.registerTool({ name: 'fixed', description: 'Fixed.', inputSchema: { type: 'object' }, handler: () => ({ value: 'ok' }) });
  assert.equal(env.host.getTool('slow')?.description, `Stops after ${env.config.script.timeoutMs} ms.`);
  assert.deepEqual(env.host.getTool('slow')?.annotations, { title: 'Slow', openWorldHint: false });

  let changes = 0;
  env.host.on('tools-changed', () => (changes += 1));
  env.host.updateConfig({ ...env.host.config, spill: { ...env.host.config.spill, thresholdChars: 10 } });
  assert.equal(changes, 0, 'a reload that leaves every description as it was announces nothing');
  env.host.updateConfig(withScriptTimeout(env.host.config, 1234));
  assert.equal(changes, 1);
  assert.deepEqual(
    env.host.listTools().map((tool) => [tool.name, tool.description]),
    [
      ['slow', 'Stops after 1234 ms.'],
      ['fixed', 'Fixed.'],
    ],
  );
});

test('a description function that throws does not break the listing; the tool still runs', async (t) => {
  const env = await tempHost({}, { builtins: false });
  t.after(() => env.cleanup());
  env.host.registerTool({
    name: 'broken',
    description: () => {
      throw new Error('no such limit');
    },
    inputSchema: { type: 'object' },
    handler: () => ({ value: 'ran' }),
  });
  assert.match(env.host.listTools()[0]?.description ?? '', /broken tool \(its description could not be built: no such limit\)/);
  const result = await env.host.execute({ name: 'broken', arguments: {} }, { conversationId: 'c1' });
  assert.equal(result.text, 'ran');
});

test('run_script, query_sql, draw_table and build_document describe the limits and the source of the running configuration', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  assert.match(env.host.getTool('run_script')?.description ?? '', /Limits per run: 10,000 ms/);
  assert.match(env.host.getTool('query_sql')?.description ?? '', /embedded demo SQLite database/);
  let changes = 0;
  env.host.on('tools-changed', () => (changes += 1));
  assert.match(env.host.getTool('draw_table')?.description ?? '', /At most 2,000 rows \(drawTable\.maxRows\)/);
  env.host.updateConfig({
    ...withScriptTimeout(env.host.config, 3000),
    sql: { ...env.host.config.sql, source: { type: 'postgres', url: 'postgres://reader@db.invalid/app' } },
    drawTable: { maxRows: 150 },
    documents: { ...env.host.config.documents, maxTableRows: 12_000 },
  });
  assert.equal(changes, 1);
  assert.match(env.host.getTool('run_script')?.description ?? '', /Limits per run: 3,000 ms/);
  const sql = env.host.getTool('query_sql');
  assert.match(sql?.description ?? '', /PostgreSQL dialect\) against a PostgreSQL database/);
  assert.equal(sql?.annotations?.openWorldHint, true);
  assert.match(env.host.getTool('draw_table')?.description ?? '', /At most 150 rows \(drawTable\.maxRows\)/);
  assert.match(env.host.getTool('build_document')?.description ?? '', /at most 12,000 table rows in all/);
});
