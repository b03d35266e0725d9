import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { makeRows } from '../helpers/temp-host.js';
import { sortRows, trickyRows } from './fixtures.js';
import { call, filesHost, csvText, expectedSelection, ok, outputPath, readCsv, spillRows } from './helpers.js';

test('export_table CSV: every column, header, order and cell match the spilled rows (csv-parse reads it back)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = trickyRows();
  const source = await spillRows(env, rows);
  const result = await call(env, 'export_table', { source, format: 'csv' });
  const value = ok(result);
  assert.equal(value.rows, rows.length);
  assert.equal(result.attachments.length, 1);
  assert.equal(result.attachments[0]?.path, value.path);
  assert.match(value.path, /^outputs\/.*\.csv$/);
  const records = await readCsv(outputPath(env, value.path));
  assert.deepEqual(records[0], ['id', 'text', 'amount', 'flag', 'nested', 'group']);
  const expected = expectedSelection(rows, {}).map((row) => row.map(csvText));
  assert.deepEqual(records.slice(1), expected);
  const bytes = await readFile(outputPath(env, value.path));
  assert.equal(value.bytes, bytes.length);
  assert.equal(result.attachments[0]?.bytes, bytes.length);
  assert.equal(result.attachments[0]?.rows, rows.length);
});

test('export_table CSV formula guard: formula-like text gets an apostrophe, numbers stay numbers (-5 unquoted)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [
    { v: -5, t: '=1+2' },
    { v: 3.25, t: '-5' },
    { v: -0.5, t: '@SUM(1)' },
    { v: 0, t: '+x' },
    { v: 1, t: '\t=x' },
    { v: 2, t: 'a=b' },
    { v: 3, t: '＝1+2' },
    { v: 4, t: 'a;=cmd' },
    { v: 5, t: ' ﹦x' },
  ]);
  const value = ok(await call(env, 'export_table', { source, format: 'csv' }));
  const text = await readFile(outputPath(env, value.path), 'utf8');
  const lines = text.split('\r\n');
  assert.equal(lines[0], 'v,t');
  assert.equal(lines[1], "-5,'=1+2");
  assert.equal(lines[2], "3.25,'-5");
  assert.equal(lines[3], "-0.5,'@SUM(1)");
  assert.equal(lines[4], "0,'+x");
  // A TAB before "=" is also a split point for a tab-separated reader: the cell is quoted as well.
  assert.equal(lines[5], `1,"'\t=x"`);
  assert.equal(lines[6], '2,a=b');
  assert.equal(lines[7], "3,'＝1+2");
  assert.equal(lines[8], '4,"a;=cmd"', 'a semicolon reader keeps the quoted cell whole');
  assert.equal(lines[9], "5,' ﹦x");
  assert.equal(lines[10], '');
});

test('export_table CSV: columns with headers, multi-key stable sort with nulls last, then the range', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = sortRows(300);
  const source = await spillRows(env, rows);
  for (const direction of ['asc', 'desc'] as const) {
    const sort = [
      { column: 'group', direction },
      { column: 'score', direction: 'desc' as const },
    ];
    const range = { start: 17, count: 150 };
    const value = ok(
      await call(env, 'export_table', {
        source,
        format: 'csv',
        columns: [{ name: 'score', header: 'Score' }, 'id', { name: 'group', header: 'Group "G"' }],
        sort,
        range,
      }),
    );
    const records = await readCsv(outputPath(env, value.path));
    assert.deepEqual(records[0], ['Score', 'id', 'Group "G"']);
    const expected = expectedSelection(rows, { columns: ['score', 'id', 'group'], sort, range }).map((row) => row.map(csvText));
    assert.equal(records.length - 1, 150);
    assert.deepEqual(records.slice(1), expected);
    // nulls last in both directions: the last rows of the whole sort have no group
    const tail = expectedSelection(rows, { columns: ['group'], sort }).slice(-75);
    assert.ok(tail.every((row) => row[0] === null));
  }
});

test('export_table CSV: numbers sort as numbers, not as text', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [{ n: 10 }, { n: 9 }, { n: 100 }, { n: -2 }, { n: 1.5 }]);
  const value = ok(await call(env, 'export_table', { source, format: 'csv', sort: { column: 'n' } }));
  const records = await readCsv(outputPath(env, value.path));
  assert.deepEqual(
    records.slice(1).map((record) => record[0]),
    ['-2', '1.5', '9', '10', '100'],
  );
});

test('export_table reads a JSON array of objects and a CSV file as sources, and an unsorted range stops early', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  const rows = makeRows(1234);
  await writeFile(outputPath(env, 'outputs/data.json'), JSON.stringify(rows, null, 1));
  const fromJson = ok(await call(env, 'export_table', { source: 'outputs/data.json', format: 'csv', range: { start: 1000, count: 5 }, filename: 'from-json' }));
  assert.equal(fromJson.path, 'outputs/from-json.csv');
  const jsonRecords = await readCsv(outputPath(env, fromJson.path));
  assert.deepEqual(
    jsonRecords.slice(1),
    expectedSelection(rows, { range: { start: 1000, count: 5 } }).map((row) => row.map(csvText)),
  );

  await writeFile(outputPath(env, 'outputs/envelope.json'), JSON.stringify({ total: 5000, items: makeRows(5000) }, null, 2));
  const fromEnvelope = ok(await call(env, 'export_table', { source: 'outputs/envelope.json', format: 'xlsx', range: { start: 4990 } }));
  assert.equal(fromEnvelope.rows, 10);

  const csv = ['id,name,amount,code', '1,"Smith, J",10.5,007', '2,"say ""hi""",-3,12345678901234567890', '3,,0,'].join('\r\n');
  await writeFile(outputPath(env, 'outputs/source.csv'), csv);
  const fromCsv = ok(await call(env, 'export_table', { source: 'outputs/source.csv', format: 'csv', sort: { column: 'amount' }, filename: 'sorted.csv' }));
  const csvRecords = await readCsv(outputPath(env, fromCsv.path));
  assert.deepEqual(csvRecords, [
    ['id', 'name', 'amount', 'code'],
    ['2', 'say "hi"', '-3', '12345678901234567890'],
    ['3', '', '0', ''],
    ['1', 'Smith, J', '10.5', '007'],
  ]);
});
