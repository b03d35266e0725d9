import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempHost } from '../helpers/temp-host.js';

test('with the default spill settings a 10-row query_sql aggregate gets a path, and build_chart charts it by that path', async (t) => {
  // The default config: no threshold lowered for the test, only the demo database.
  const env = await tempHost({ demo: { rows: 500, seed: 1 } });
  t.after(() => env.cleanup());
  const context = { conversationId: 'c1' };
  const result = await env.host.execute(
    { name: 'query_sql', arguments: { sql: 'SELECT account_id, count(*) AS n FROM transactions GROUP BY account_id ORDER BY n DESC LIMIT 10' } },
    context,
  );
  assert.equal(result.isError, false, result.text);
  assert.ok(result.text.length < 2_000, `the model reads a small text (${result.text.length} characters)`);
  assert.equal(result.spill?.format, 'jsonl');
  assert.equal(result.spill?.rows, 10);
  const chart = await env.host.execute(
    {
      name: 'build_chart',
      arguments: {
        source: result.spill?.path,
        spec: { mark: 'bar', encoding: { x: { field: 'account_id', type: 'nominal' }, y: { field: 'n', type: 'quantitative' } } },
        filename: 'top-accounts',
      },
    },
    context,
  );
  assert.equal(chart.isError, false, chart.text);
  assert.match(chart.text, /top-accounts\.png/);
});
