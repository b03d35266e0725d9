import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { compareCells } from '../../src/files/selection/compare-cells.js';
import { csvCell, csvLine, guardFormula } from '../../src/files/formats/csv-cells.js';
import { csvFieldValue, csvRecords } from '../../src/files/sources/csv-records.js';
import { headerNames } from '../../src/files/sources/csv-rows.js';
import { jsonArrayRows } from '../../src/files/sources/json-array-rows.js';
import { jsonlRows } from '../../src/files/sources/jsonl-rows.js';

/** Splits text into chunks at the given cut points, as a file read would. */
async function* chunked(text: string, cuts: number[]): AsyncGenerator<string> {
  let start = 0;
  for (const cut of [...new Set(cuts.map((value) => value % (text.length + 1)))].sort((a, b) => a - b)) {
    if (cut > start) yield text.slice(start, cut);
    start = Math.max(start, cut);
  }
  if (start < text.length) yield text.slice(start);
}

async function collect(batches: AsyncIterable<Record<string, unknown>[]>): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
}

async function parseCsv(text: string, cuts: number[]): Promise<string[][]> {
  const records: string[][] = [];
  for await (const batch of csvRecords(chunked(text, cuts), 'test.csv')) records.push(...batch.map((record) => record.fields));
  return records;
}

const cellText = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r', ' ', '=', 'é', '日', '-', '\t') });

test('CSV writer and reader agree with csv-parse on any text, wherever the chunks are cut (property)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(cellText, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(400), { maxLength: 6 }),
      async (records, cuts) => {
        const text = records.map((record) => csvLine(record)).join('');
        const expected = records.map((record) => record.map(guardFormula));
        assert.deepEqual(parse(text, { relax_quotes: false }), expected);
        assert.deepEqual(await parseCsv(text, cuts), expected);
      },
    ),
    { numRuns: 300 },
  );
});

test('CSV records: CRLF, LF and CR line ends mixed, empty lines, line numbers, wherever the chunks are cut (property)', async () => {
  const text = 'a,b\r\n1,"x\r\ny"\n\r2,3\r"",4\n5,"p\nq"\r\n6,7';
  await fc.assert(
    fc.asyncProperty(fc.array(fc.nat(50), { maxLength: 6 }), async (cuts) => {
      const records: { fields: string[]; line: number }[] = [];
      for await (const batch of csvRecords(chunked(text, cuts), 'mixed.csv')) records.push(...batch);
      assert.deepEqual(records, [
        { fields: ['a', 'b'], line: 1 },
        { fields: ['1', 'x\r\ny'], line: 2 },
        { fields: [''], line: 4 },
        { fields: ['2', '3'], line: 5 },
        { fields: ['', '4'], line: 6 },
        { fields: ['5', 'p\nq'], line: 7 },
        { fields: ['6', '7'], line: 9 },
      ]);
    }),
    { numRuns: 100 },
  );
});

test('CSV records: an unbalanced quote is NOT_A_TABLE naming the line its record starts on', async () => {
  await assert.rejects(
    async () => {
      for await (const _batch of csvRecords(chunked('a,b\n1,2\n3,"open\n4,5\n', []), 'cut.csv'));
    },
    (error: { code?: string; message?: string }) =>
      error.code === 'NOT_A_TABLE' && /cut\.csv ends inside a quoted field that starts on line 3/.test(error.message ?? ''),
  );
});

test('CSV header names: blanks become column_N, repeats get _2, _3, also across a very wide header', () => {
  assert.deepEqual(headerNames(['a', '', 'a', 'a_2', 'a', ' ']), ['a', 'column_2', 'a_2', 'a_2_2', 'a_3', 'column_6']);
  // 40,000 cells of the same text (a 78 KiB header line): every name distinct, suffixes in order.
  const wide = headerNames(Array.from({ length: 40_000 }, () => 'x'));
  assert.equal(new Set(wide).size, 40_000);
  assert.equal(wide[0], 'x');
  assert.equal(wide[1], 'x_2');
  assert.equal(wide[39_999], 'x_40000');
});

test('CSV cells: numbers plain, formula-like text guarded, nested values as JSON', () => {
  assert.equal(csvCell(-5), '-5');
  assert.equal(csvCell(1e21), '1e+21');
  assert.equal(csvCell('-5'), '-5', 'signed text that computes nothing stays as written');
  assert.equal(csvCell('-A1'), "'-A1");
  assert.equal(csvCell('=A1,B1'), `"'=A1,B1"`);
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(false), 'false');
  assert.equal(csvCell({ a: '"x"' }), '"{""a"":""\\""x\\""""}"');
});

test('CSV fields become numbers only when nothing is lost', () => {
  assert.equal(csvFieldValue(''), null);
  assert.equal(csvFieldValue('12'), 12);
  assert.equal(csvFieldValue('-3.5e2'), -350);
  assert.equal(csvFieldValue('007'), '007');
  assert.equal(csvFieldValue('12345678901234567890'), '12345678901234567890');
  assert.equal(csvFieldValue('1,000'), '1,000');
  assert.equal(csvFieldValue('true'), 'true');
  assert.equal(csvFieldValue(' 1'), ' 1');
});

const rowArbitrary = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 5 }).filter((key) => key !== '__proto__'),
  fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
  ),
  { maxKeys: 4 },
);

test('JSON arrays stream element by element with the same rows as JSON.parse, wherever the chunks are cut (property)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(rowArbitrary, { maxLength: 12 }), fc.array(fc.nat(2000), { maxLength: 8 }), fc.boolean(), async (rows, cuts, pretty) => {
      const text = JSON.stringify(rows, null, pretty ? 2 : undefined);
      assert.deepEqual(await collect(jsonArrayRows(chunked(text, cuts), 'x.json')), JSON.parse(text));
    }),
    { numRuns: 200 },
  );
});

test('JSONL rows stream line by line, CRLF and blank lines allowed, wherever the chunks are cut (property)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(rowArbitrary, { maxLength: 12 }),
      fc.array(fc.nat(2000), { maxLength: 8 }),
      fc.constantFrom('\n', '\r\n'),
      async (rows, cuts, newline) => {
        const text = rows.map((row) => JSON.stringify(row)).join(newline) + (rows.length > 0 ? newline : '');
        assert.deepEqual(await collect(jsonlRows(chunked(text, cuts), 'x.jsonl')), JSON.parse(JSON.stringify(rows)));
      },
    ),
    { numRuns: 200 },
  );
});

test('malformed JSON arrays are refused with the item they fail at', async () => {
  const cases: [string, RegExp][] = [
    ['[{"a":1},{"a":2}', /ends before the closing/],
    ['[{"a":1}{"a":2}]', /comma is missing after item 1/],
    ['[{"a":1},]', /comma before "]" after item 1/],
    ['[{"a":1}] x', /more text after/],
    ['[{"a":1},{"a":}]', /Item 2 of the array .* is not valid JSON/],
    ['', /empty/],
  ];
  for (const [text, message] of cases) await assert.rejects(collect(jsonArrayRows(chunked(text, []), 'x.json')), message, text);
});

test('the sort order: numbers as numbers, text by code unit, empty values last in both directions (property: a total, antisymmetric order)', () => {
  const values = [null, undefined, -1, 2, 10, 'a', 'B', '', true, false, { a: 1 }];
  assert.deepEqual(
    [...values].sort((a, b) => compareCells(a, b, false)),
    [-1, 2, 10, '', 'B', 'a', false, true, { a: 1 }, null, undefined],
  );
  assert.deepEqual(
    [...values].sort((a, b) => compareCells(a, b, true)),
    [{ a: 1 }, true, false, 'a', 'B', '', 10, 2, -1, null, undefined],
  );
  const cell = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), fc.boolean());
  fc.assert(
    fc.property(cell, cell, fc.boolean(), (a, b, descending) => {
      const forward = compareCells(a, b, descending);
      const backward = compareCells(b, a, descending);
      assert.equal(Math.sign(forward) + Math.sign(backward), 0);
    }),
  );
});

test('selectRows sorts like the reference for numbers, text, mixed values and several keys (property)', async () => {
  const { selectRows } = await import('../../src/files/selection/select-rows.js');
  const { expectedSelection } = await import('./helpers.js');
  const value = fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -3, max: 3 }));
  const text = fc.oneof(fc.constant(null), fc.constantFrom('a', 'B', 'b', '', 'aa'));
  const row = fc.record({ n: value, t: text, m: fc.oneof(value, text, fc.boolean()) }, { requiredKeys: [] });
  const key = fc.record({ column: fc.constantFrom('n', 't', 'm'), direction: fc.constantFrom('asc' as const, 'desc' as const) });
  await fc.assert(
    fc.asyncProperty(fc.array(row, { maxLength: 40 }), fc.array(key, { minLength: 1, maxLength: 2 }), fc.nat(10), async (rows, sort, start) => {
      const source = {
        name: 'x.jsonl',
        format: 'jsonl' as const,
        bytes: 0,
        knownColumns: ['n', 't', 'm'],
        knownRows: rows.length,
        counter: { bytesRead: 0 },
        close: async () => undefined,
        batches: async function* () {
          yield rows as Record<string, unknown>[];
        },
      };
      const selected = await selectRows({ source, selection: { sort, range: { start } } });
      const got: unknown[][] = [];
      for await (const batch of selected.batches) got.push(...batch);
      assert.deepEqual(got, expectedSelection(rows as Record<string, unknown>[], { columns: ['n', 't', 'm'], sort, range: { start } }));
    }),
    { numRuns: 300 },
  );
});
