import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, filesHost, spillRows } from './helpers.js';

function tableLines(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('| '));
}

test('draw_table caps by size: the table and its footer fit what the model reads inline, and the footer names the rows shown', async (t) => {
  const env = await filesHost({ inline: { maxTokens: 5_000, bytesPerToken: 3 } });
  t.after(() => env.cleanup());
  const rows = Array.from({ length: 2_000 }, (_, index) => ({
    id: index + 1,
    note: `note ${index + 1} ${'lorem ipsum '.repeat(8)}`,
    long: index === 2 ? 'x'.repeat(900) : 'short',
  }));
  const source = await spillRows(env, rows);
  const result = await call(env, 'draw_table', { source });
  assert.equal(result.isError, false, result.text);
  assert.equal(result.truncated, false, 'the host never has to cut the table');
  assert.ok(Buffer.byteLength(result.text) <= 5_000 * 3);
  const body = tableLines(result.text).slice(2);
  const footer = /This table shows rows 1–([\d,]+) of the 2,000 selected rows/.exec(result.text);
  assert.ok(footer, result.text.slice(-600));
  const shown = Number((footer[1] ?? '').replaceAll(',', ''));
  assert.equal(body.length, shown, 'the footer counts exactly the rows drawn');
  assert.match(body.at(-1) ?? '', new RegExp(`^\\| ${shown} \\|`), 'the rows are the first ones, in order');
  assert.match(result.text, new RegExp(`rows ${shown + 1}–2,000 are left out`));
  assert.match(result.text, /1 cell longer than 500 characters is cut with "…" \(row 3 "long"\)/);
});

test('draw_table formats numbers and dates in the locale and right-aligns numbers', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [
    { day: '2026-03-01', amount: 1025678.02, share: 0.3 },
    { day: '2026-03-02', amount: 0.30000000000000004, share: 0.25 },
  ]);
  const result = await call(env, 'draw_table', { source, locale: 'de-DE', columns: ['day', 'amount', { name: 'share', format: 'percent' }] });
  const lines = tableLines(result.text);
  assert.deepEqual(lines.slice(1), ['| --- | ---: | ---: |', '| 1. März 2026 | 1.025.678,02 | 30\u00a0% |', '| 2. März 2026 | 0,30 | 25\u00a0% |']);
  assert.match(result.text, /2 rows × 3 columns/);
});
