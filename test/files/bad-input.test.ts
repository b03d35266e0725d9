import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { makeRows } from '../helpers/temp-host.js';
import { call, filesHost, ok, outputPath, readCsv, spillRows } from './helpers.js';

test('an unknown column is refused with the real columns and a suggestion; so is a sort on a missing column', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(30));
  const unknown = await call(env, 'export_table', { source, format: 'csv', columns: ['id', 'amout'] });
  assert.equal(unknown.error?.code, 'UNKNOWN_COLUMN');
  assert.match(unknown.text, /Unknown column "amout".*its columns are: id, name, amount, active, note.*Did you mean: amount/);
  assert.deepEqual(unknown.error?.details?.columns, ['id', 'name', 'amount', 'active', 'note']);
  const sort = await call(env, 'export_table', { source, format: 'xlsx', sort: { column: 'price', direction: 'desc' } });
  assert.equal(sort.error?.code, 'UNKNOWN_COLUMN');
  assert.match(sort.text, /Unknown sort column "price"/);
  assert.deepEqual(await readdir(outputPath(env, 'outputs')), [], 'nothing was written');
});

test('an unknown column in a source without metadata (a JSON array) is found too', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/rows.json'), JSON.stringify([{ a: 1 }, { a: 2, b: 3 }]));
  const result = await call(env, 'export_table', { source: 'outputs/rows.json', format: 'csv', columns: ['c'] });
  assert.equal(result.error?.code, 'UNKNOWN_COLUMN');
  assert.match(result.text, /its columns are: a, b/);
  const late = ok(await call(env, 'export_table', { source: 'outputs/rows.json', format: 'csv', columns: ['b'], filename: 'b.csv' }));
  assert.deepEqual(await readCsv(outputPath(env, late.path)), [['b'], [''], ['3']]);
});

test('a negative or non-integer range is refused; a range past the end gives a header-only file and says so', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(30));
  for (const range of [{ start: -1, count: 5 }, { start: 1.5 }, { start: 0, count: -2 }, { start: '3' }]) {
    const result = await call(env, 'export_table', { source, format: 'csv', range });
    assert.equal(result.isError, true, JSON.stringify(range));
    assert.equal(result.error?.code, 'INVALID_ARGUMENTS');
    assert.match(result.text, /range/);
  }
  const past = ok(await call(env, 'export_table', { source, format: 'csv', range: { start: 30, count: 10 } }));
  assert.equal(past.rows, 0);
  assert.match((past.notes ?? []).join(' '), /range starts at row 30 but .* has only 30 rows/);
  assert.deepEqual(await readCsv(outputPath(env, past.path)), [['id', 'name', 'amount', 'active', 'note']]);
  const pastSorted = ok(await call(env, 'export_table', { source, format: 'xlsx', sort: { column: 'id' }, range: { start: 99 } }));
  assert.equal(pastSorted.rows, 0);
  assert.match((pastSorted.notes ?? []).join(' '), /range starts at row 99/);
});

test('a source that is not a table is refused, naming what it is', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'results/notes.txt'), 'just some text\nmore text\n');
  await writeFile(outputPath(env, 'results/object.json'), JSON.stringify({ a: 1, b: { c: 2 } }, null, 2));
  await writeFile(outputPath(env, 'results/numbers.json'), '[1, 2, 3]');
  await writeFile(outputPath(env, 'results/image.bin'), Buffer.from([0x89, 0x50, 0, 1, 2]));
  const cases: [string, RegExp][] = [
    ['results/notes.txt', /not a table/],
    ['results/object.json', /JSON but not a table/],
    ['results/numbers.json', /Item 1 of the array .* is not an object/],
    ['results/image.bin', /binary file/],
  ];
  for (const [source, message] of cases) {
    const result = await call(env, 'export_table', { source, format: 'csv' });
    assert.equal(result.error?.code, 'NOT_A_TABLE', source);
    assert.match(result.text, message);
  }
});

test('sources outside the sandbox are refused: "..", absolute paths, symlinks out, another conversation', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const other = await spillRows(env, makeRows(5), 'other');
  await env.host.sandbox.conversation('c1').ensure();
  const outside = path.join(env.dir, 'secret.jsonl');
  await writeFile(outside, '{"secret":1}\n');
  await symlink(outside, outputPath(env, 'results/link.jsonl'));
  const cases: [string, string][] = [
    ['../other/' + other, 'PATH_TRAVERSAL'],
    [outside, 'PATH_ABSOLUTE'],
    ['results/link.jsonl', 'PATH_ESCAPES'],
    [other, 'PATH_NOT_FOUND'],
  ];
  for (const [source, code] of cases) {
    for (const tool of ['export_table', 'draw_table']) {
      const result = await call(env, tool, tool === 'export_table' ? { source, format: 'csv' } : { source });
      assert.equal(result.error?.code, code, `${tool} ${source}: ${result.text}`);
    }
  }
  const attach = await call(env, 'attach_file', { path: 'results/link.jsonl' });
  assert.equal(attach.error?.code, 'PATH_ESCAPES');
  const document = await call(env, 'build_document', { format: 'docx', spec: { title: 't', blocks: [{ type: 'table', source: '../other/' + other }] } });
  assert.equal(document.error?.code, 'PATH_TRAVERSAL');
});

test('a filename with a path is refused; an existing output name gets a new name that is reported, never overwritten', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(10));
  for (const filename of ['../x.csv', 'sub/x.csv', 'a\\b.csv', '/etc/x.csv']) {
    const result = await call(env, 'export_table', { source, format: 'csv', filename });
    assert.equal(result.error?.code, 'INVALID_ARGUMENTS', filename);
    assert.match(result.text, /contains a folder/);
  }
  const wrongExtension = await call(env, 'export_table', { source, format: 'csv', filename: 'x.xlsx' });
  assert.match(wrongExtension.text, /ends in \.xlsx but the file is CSV/);

  const first = ok(await call(env, 'export_table', { source, format: 'csv', filename: 'report.csv', range: { start: 0, count: 1 } }));
  const before = await readFile(outputPath(env, first.path));
  const second = ok(await call(env, 'export_table', { source, format: 'csv', filename: 'report.csv' }));
  assert.equal(first.path, 'outputs/report.csv');
  assert.equal(second.path, 'outputs/report (2).csv');
  assert.match((second.notes ?? []).join(' '), /outputs\/report\.csv already existed and was kept; this file is named outputs\/report \(2\)\.csv/);
  assert.deepEqual(await readFile(outputPath(env, first.path)), before, 'the first file is untouched');
  const attached = ok(await call(env, 'attach_file', { path: 'outputs/report.csv' }));
  assert.equal(attached.path, 'outputs/report (3).csv');
});

test('a JSONL file with a broken line is refused with the line number', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'results/broken.jsonl'), '{"a":1}\n{"a":2}\n\n{"a":3,}\n{"a":4}\n');
  for (const format of ['csv', 'xlsx']) {
    const result = await call(env, 'export_table', { source: 'results/broken.jsonl', format });
    assert.equal(result.error?.code, 'INVALID_JSON');
    assert.match(result.text, /Line 4 of results\/broken\.jsonl is not valid JSON/);
  }
  await writeFile(outputPath(env, 'results/scalar.jsonl'), '{"a":1}\n42\n');
  const scalar = await call(env, 'export_table', { source: 'results/scalar.jsonl', format: 'csv', sort: { column: 'a' } });
  assert.equal(scalar.error?.code, 'NOT_A_TABLE');
  assert.match(scalar.text, /Line 2 .* holds a number, not a row object/);
  const outputs = await readdir(outputPath(env, 'outputs'));
  assert.deepEqual(outputs, [], 'no output and no temporary file is left behind');
});

test('mixed types in one column: each cell keeps its type and the result says which columns mix', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [{ v: 1 }, { v: 'two' }, { v: true }, { v: null }, { v: 2.5 }]);
  const value = ok(await call(env, 'export_table', { source, format: 'csv', sort: { column: 'v' } }));
  assert.match((value.notes ?? []).join(' '), /Column "v" mixes numbers and text and booleans/);
  assert.deepEqual(await readCsv(outputPath(env, value.path)), [['v'], ['1'], ['2.5'], ['two'], ['true'], ['']]);
});

test('0 rows: a CSV with only a header exports a header-only file; an empty JSON array is refused', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'outputs/empty.csv'), 'a,b\r\n');
  const value = ok(await call(env, 'export_table', { source: 'outputs/empty.csv', format: 'xlsx' }));
  assert.equal(value.rows, 0);
  assert.match((value.notes ?? []).join(' '), /has no rows, so the output holds the header only/);
  await writeFile(outputPath(env, 'results/empty.json'), '[]');
  const empty = await call(env, 'export_table', { source: 'results/empty.json', format: 'csv' });
  assert.equal(empty.error?.code, 'NOT_A_TABLE');
  assert.match(empty.text, /no rows and no columns/);
});

test('draw_table draws the selection as Markdown and refuses more than drawTable.maxRows, pointing to export_table', async (t) => {
  const env = await filesHost({ drawTable: { maxRows: 20 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, [...makeRows(25), { id: 26, name: 'pipe | and\nnewline', amount: null, active: false, note: 'x' }]);
  const drawn = await call(env, 'draw_table', {
    source,
    columns: ['id', { name: 'name', header: 'Name' }],
    sort: { column: 'id', direction: 'desc' },
    range: { start: 0, count: 3 },
  });
  assert.equal(drawn.isError, false, drawn.text);
  const lines = drawn.text.split('\n');
  assert.deepEqual(lines.slice(0, 5), ['| id | Name |', '| ---: | --- |', '| 26 | pipe \\| and<br>newline |', '| 25 | item-25 |', '| 24 | item-24 |']);
  assert.match(drawn.text, /3 rows of 26 × 2 columns/);
  assert.equal(drawn.spill, undefined, 'a drawn table stays inline');
  const tooMany = await call(env, 'draw_table', { source });
  assert.equal(tooMany.error?.code, 'ROW_LIMIT');
  assert.match(tooMany.text, /at most 20 rows.* 26\. Draw only the rows the answer needs .* export_table/);
  const unsortedTooMany = await call(env, 'draw_table', { source, range: { start: 2 } });
  assert.match(unsortedTooMany.text, /has 24\./);
});

test('attach_file copies a file byte for byte into outputs/ with a download card', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(50));
  const result = await call(env, 'attach_file', { path: source, filename: 'all-rows' });
  const value = ok(result);
  assert.equal(value.path, 'outputs/all-rows.jsonl');
  assert.equal(value.rows, 50);
  assert.deepEqual(await readFile(outputPath(env, value.path)), await readFile(outputPath(env, source)));
  assert.deepEqual(result.attachments[0], {
    path: 'outputs/all-rows.jsonl',
    filename: 'all-rows.jsonl',
    bytes: (await readFile(outputPath(env, source))).length,
    mimeType: 'application/jsonl',
    uri: 'spillway://sandbox/outputs/all-rows.jsonl',
    rows: 50,
  });
  await mkdir(outputPath(env, 'results/folder'));
  const folder = await call(env, 'attach_file', { path: 'results/folder' });
  assert.equal(folder.error?.code, 'PATH_NOT_FILE');
});

test('columns named like Object.prototype members are ordinary columns (missing means empty, never a function)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await env.host.sandbox.conversation('c1').ensure();
  await writeFile(outputPath(env, 'results/proto.jsonl'), '{"constructor":"c1","__proto__":{"x":1},"toString":2}\n{"a":1}\n');
  const value = ok(await call(env, 'export_table', { source: 'results/proto.jsonl', format: 'csv', columns: ['constructor', '__proto__', 'toString', 'a'] }));
  assert.deepEqual(await readCsv(outputPath(env, value.path)), [
    ['constructor', '__proto__', 'toString', 'a'],
    ['c1', '{"x":1}', '2', ''],
    ['', '', '', '1'],
  ]);
});
