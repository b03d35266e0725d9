import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { TableProfile } from '../../src/spill/profile.js';
import { tempHost } from '../helpers/temp-host.js';
import { recount } from './recount.js';
import { connectHttpClient } from '../helpers/http-client.js';

function tickets(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, index) => ({
    id: index + 1,
    country: ['DE', 'FR', 'NL', 'PL'][index % 4],
    opened: new Date(Date.UTC(2026, 0, 1) + index * 3_600_000).toISOString(),
    hours: index % 10 === 0 ? null : (index * 7) % 100,
    title: `Ticket ${index + 1} about a printer`,
  }));
}

test('over MCP: a cut result carries the profile of every row; list_files and inspect_file return it and it matches a recount', async (t) => {
  // A small inline cap, so 3,000 rows are cut to a prefix.
  const env = await tempHost({ inline: { maxTokens: 2000, bytesPerToken: 3 } });
  t.after(() => env.cleanup());
  const rows = tickets(3000);
  env.host.registerTool({ name: 'list_tickets', description: 'tickets', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const { client, sessionId } = await connectHttpClient(t, env.host);

  const listed = await client.callTool({ name: 'list_tickets', arguments: {} });
  const text = (listed.content as { type: string; text: string }[])[0]?.text ?? '';
  const spill = (listed._meta as Record<string, { path: string }>)['spillway/spill'];
  assert.ok(spill);
  assert.match(text, /Showing \d+ of 3,000 rows/);
  assert.match(text, /Profile of all 3,000 rows/);
  assert.match(text, /country: string, 4 distinct; top "DE" 750, "FR" 750, "NL" 750, "PL" 750/);
  assert.match(text, /opened: ISO date text, 2026-01-01T00:00:00.000Z … 2026-05-05T23:00:00.000Z/);
  assert.match(text, /hours: integer, 300 null, 1 … 99/);
  assert.ok(Buffer.byteLength(text) < 2000 * 3 + 2000, 'the profile fits in the inline budget (with the reference sentence)');

  const inspected = await client.callTool({ name: 'inspect_file', arguments: { path: spill.path } });
  assert.equal(inspected.isError, false);
  // The tool's value is structuredContent.result (spillway's structured-result envelope).
  const value = (inspected.structuredContent as { result?: { rows: number; bytes: number; profile: TableProfile; readCost: { tokens: number } } } | undefined)
    ?.result;
  const parsed = value ?? (JSON.parse((inspected.content as { text: string }[])[0]?.text ?? '{}') as typeof value);
  assert.ok(parsed);
  assert.equal(parsed.rows, 3000);
  assert.equal(parsed.readCost.tokens, Math.ceil(parsed.bytes / 3));
  const expected = await recount(path.join(env.host.sandbox.conversation(sessionId).dir, spill.path));
  assert.deepEqual(
    parsed.profile.columns.map(({ type: _type, distinctEstimated: _estimated, distinct: _distinct, ...rest }) => rest),
    expected.columns.map(({ distinct: _distinct, ...rest }) => rest),
  );
  // Past the exact cap (1,000) the count is an estimate that says so; below it, exact.
  for (const [index, column] of parsed.profile.columns.entries()) {
    const truth = expected.columns[index]?.distinct ?? 0;
    if (column.distinctEstimated) assert.ok(truth > 1000 && Math.abs(column.distinct - truth) / truth < 0.1, `${column.name}: ≈${column.distinct} of ${truth}`);
    else assert.equal(column.distinct, truth, column.name);
  }
  assert.equal(parsed.profile.columns[0]?.distinctEstimated, true, 'the id column is estimated');

  const files = await client.callTool({ name: 'list_files', arguments: { dir: 'results' } });
  const listing = JSON.parse((files.content as { text: string }[])[0]?.text ?? '{}') as { files: { path: string; profile?: string[] }[] };
  const entry = listing.files.find((file) => file.path === spill.path);
  assert.ok(entry?.profile?.some((line) => line.startsWith('country: string, 4 distinct')));

  const missing = await client.callTool({ name: 'inspect_file', arguments: { path: '../other/results/0001-x.jsonl' } });
  assert.equal(missing.isError, true);
  assert.match((missing.content as { text: string }[])[0]?.text ?? '', /contains "\.\."/);
});

test('inspect_file summarises a data file that has no stored profile (a CSV a user placed) with DuckDB', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  await env.host.execute({ name: 'list_files', arguments: {} }, { conversationId: 'c1' });
  const lines = [
    'team,budget,opened',
    ...Array.from({ length: 40 }, (_, index) => `${['red', 'blue'][index % 2]},${index * 10},2026-01-${String((index % 28) + 1).padStart(2, '0')}`),
  ];
  await writeFile(path.join(env.host.sandbox.conversation('c1').dir, 'outputs', 'budget.csv'), `${lines.join('\n')}\n`);
  const result = await env.host.execute({ name: 'inspect_file', arguments: { path: 'outputs/budget.csv' } }, { conversationId: 'c1' });
  assert.equal(result.isError, false, result.text);
  const value = result.value as {
    rows: number;
    columns: string[];
    summarize: { column_name: string; min: unknown; max: unknown; approx_unique: number }[];
    summary: string;
  };
  assert.equal(value.rows, 40);
  assert.deepEqual(value.columns, ['team', 'budget', 'opened']);
  assert.equal(value.summarize[1]?.max, '390');
  assert.match(value.summary, /SUMMARIZE of all 40 rows/);
});
