// The CSV export's JSONL transcoder (src/files/formats/csv-from-jsonl.ts) against the general
// writer it replaced for spills (rows from selectRows, one csvLine each: writeCsvByRows): the
// same bytes, row counts, stats and errors, for every awkward value and every option.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { transcodable, writeCsv, writeCsvByRows, writeCsvSplit } from '../../src/files/formats/csv-writer.js';
import type { TableResult, TableTask } from '../../src/files/pool/worker-task.js';
import type { OutputColumn, Selection, SortKey } from '../../src/files/selection/selection.js';
import { compareCells } from '../../src/files/selection/compare-cells.js';
import { sortOrder } from '../../src/files/selection/sort-order.js';
import { openTableSource } from '../../src/files/sources/table-source.js';

let dir: string;
let fileCounter = 0;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'spillway-csv-equivalence-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A JSONL table file with the metadata a spill has (columns, rows, bytes), from raw lines. */
async function tableFile(content: string | Buffer, columns: string[], rows?: number): Promise<string> {
  fileCounter += 1;
  const file = path.join(dir, `t${fileCounter}.jsonl`);
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  await writeFile(file, bytes);
  await writeFile(`${file}.meta.json`, JSON.stringify({ path: `results/t${fileCounter}.jsonl`, format: 'jsonl', bytes: bytes.length, columns, rows }));
  return file;
}

interface Options {
  selection: Selection;
  bom?: boolean;
  delimiter?: ',' | ';' | '\t';
  formulaGuard?: boolean;
  locale?: string;
}

type Outcome = { ok: true; bytes: Buffer; result: TableResult } | { ok: false; code: unknown; message: string };

async function run(writer: typeof writeCsv, source: string, options: Options): Promise<Outcome> {
  fileCounter += 1;
  const out = path.join(dir, `out${fileCounter}.csv`);
  const task: TableTask = { source: { kind: 'local', path: source }, output: { kind: 'local', path: out, overwrite: true }, ...options };
  try {
    const result = await writer(task, () => undefined);
    const bytes = await readFile(out);
    await rm(out);
    return { ok: true, bytes, result: { ...result, path: '' } };
  } catch (error) {
    return { ok: false, code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
}

/** Both writers on one file and options: the same bytes and result, or the same error. */
async function assertSame(source: string, options: Options, writer: typeof writeCsv = writeCsv): Promise<void> {
  const opened = await openTableSource({ kind: 'local', path: source });
  try {
    assert.ok(transcodable(opened, { ...options, source: { kind: 'local', path: source }, output: { kind: 'local', path: '', overwrite: true } }));
  } finally {
    await opened.close();
  }
  const fast = await run(writer, source, options);
  const general = await run(writeCsvByRows, source, options);
  const label = JSON.stringify(options);
  if (!general.ok || !fast.ok) {
    assert.deepEqual(fast, general, label);
    return;
  }
  if (!fast.bytes.equals(general.bytes)) {
    assert.equal(fast.bytes.toString('latin1'), general.bytes.toString('latin1'), `bytes differ for ${label}`);
  }
  assert.deepEqual(fast.result, general.result, label);
}

const awkwardText = [
  'plain',
  '',
  ' leading space',
  'say "hi"',
  '"',
  'a,b',
  'a;b',
  'a|b',
  'line\nbreak',
  'crlf\r\nend',
  '\r',
  '=SUM(A1)',
  '+1',
  '-1',
  '@x',
  '\t=x',
  '\r=x',
  '＝1',
  '﹦x',
  '+4915112345678',
  '-- see ticket 4471',
  '-A1',
  '+HYPERLINK("x")',
  'a;=cmd',
  'a,=cmd',
  'a|=cmd',
  'x\t=y',
  "a;'=b",
  'a; "=b',
  '\u00a0=cmd',
  '\u200b=cmd',
  '\ufeff=x',
  '\u2060+x',
  '\u3000-x',
  '\u034f=x',
  '\ufe0f=x',
  '\u17b4@x',
  '\udb40\udc41=x',
  ' =x',
  'Zürich',
  'São Paulo',
  'Ünïcode first',
  '日本語',
  '😀 emoji',
  '\ud800',
  'a\udc00b',
  '123',
  '1.50',
  '007',
  '-5',
  '1e5',
  '2026-01-01T00:00:00.000Z',
  '2026-01-01',
  '\u007f del',
  '\u0085 nel',
  'tab\tinside',
  'back\\slash',
  '|start',
];

const numberTexts = [
  '0',
  '-0',
  '-0.0',
  '0.0',
  '0.10',
  '0.1',
  '1.5',
  '-0.5',
  '100',
  '1E+2',
  '1e2',
  '1e-7',
  '0.000001',
  '0.0000001',
  '0.0000012345',
  '123456789012345',
  '1234567890123456',
  '12345678901234567890',
  '999999999999999999999',
  '1e21',
  '1e400',
  '-1e400',
  '1.7976931348623157e308',
  '5e-324',
  '3.14159265358979',
  '3.141592653589793',
  '-123.456',
  '1.000000000000001',
];

const nestedTexts = ['{"a":1,"b":[1,2]}', '[]', '{}', '[{"x":"=1"}]', '{"k":"a,b;c"}', '[1e2, 1.50, "\\u00e9"]', '{ "spaced" : [ true , null ] }', '[[[]]]'];

/** The awkward table: every kind of value in every column position, written in several JSON spellings. */
function awkwardLines(): string[] {
  const lines: string[] = [];
  let id = 0;
  const next = () => (id += 1);
  for (const text of awkwardText) lines.push(JSON.stringify({ id: next(), text, amount: id % 7, mixed: text, flag: id % 2 === 0 }));
  for (const number of numberTexts) lines.push(`{"id":${next()},"text":"n","amount":${number},"mixed":${number},"flag":null}`);
  for (const nested of nestedTexts) lines.push(`{"id":${next()},"text":${nested},"amount":null,"mixed":${nested}}`);
  lines.push(
    `{"id":${next()},"text":"\\u00e9scaped \\"quote\\" \\n \\t \\u0000 \\ud83d\\ude00","amount":1}`,
    `{"id":${next()},"text":"=\\u0041"}`,
    `{"id":${next()},"mixed":true,"text":false}`,
    `{"amount":5,"id":${next()}}`,
    `{"id":${next()},"text":"first","text":"second, duplicate"}`,
    `{"\\u0069d":${next()},"text":"escaped key"}`,
    `  {  "id" : ${next()} ,\t"text"\t:\t"spaced"  }  `,
    `{"id":${next()},"text":"crlf line"}\r`,
    '',
    '   ',
    '\u00a0',
    `{"id":${next()},"extra":"not a column","nested_extra":{"deep":[1,{"x":"\\u0041"}]},"text":"extra keys"}`,
    `{"id":${next()},"__proto__":"proto key","constructor":"ctor","text":"prototype names"}`,
    `{"id":${next()},"mixed":"9","amount":-1}`,
    `{"id":${next()},"mixed":{"z":1},"amount":2}`,
    `{"id":${next()},"mixed":[3],"amount":2}`,
    `{"id":${next()},"mixed":false,"amount":2}`,
    `{"id":${next()},"mixed":-2.5,"amount":2}`,
    '{}',
    `{"id":${next()},"text":null,"amount":null,"mixed":null,"flag":true}`,
  );
  return lines;
}

const columns = ['id', 'text', 'amount', 'mixed', 'flag', '__proto__', 'constructor'];

const sorts: SortKey[][] = [
  [],
  [{ column: 'amount', direction: 'desc' }],
  [{ column: 'amount', direction: 'asc' }],
  [{ column: 'text', direction: 'asc' }],
  [{ column: 'text', direction: 'desc' }],
  [
    { column: 'mixed', direction: 'asc' },
    { column: 'id', direction: 'desc' },
  ],
  [{ column: 'mixed', direction: 'desc' }],
  [{ column: 'flag', direction: 'asc' }],
];
const ranges: (Selection['range'] | undefined)[] = [
  undefined,
  { start: 0, count: 0 },
  { start: 3 },
  { start: 2, count: 5 },
  { start: 1000 },
  { start: 0, count: 1 },
];
const columnChoices: (OutputColumn[] | undefined)[] = [
  undefined,
  [
    { name: 'text', header: '=Text, "quoted"' },
    { name: 'id', header: 'id' },
  ],
  [
    { name: 'id', header: 'id' },
    { name: 'id', header: 'again' },
    { name: 'constructor', header: '\ud800' },
  ],
  [{ name: 'flag', header: 'flag' }],
];
const dialects: Pick<Options, 'delimiter' | 'formulaGuard'>[] = [
  {},
  { delimiter: ';' },
  { delimiter: '\t' },
  { formulaGuard: false },
  { delimiter: ';', formulaGuard: false },
  { delimiter: '\t', formulaGuard: false },
];

test('CSV from JSONL: the same bytes as the general writer for every awkward value, sort, range, columns, BOM, delimiter and guard', async () => {
  const lines = awkwardLines();
  const file = await tableFile(`\uFEFF${lines.join('\n')}`, columns);
  const noNewlineAtEnd = await tableFile(`${lines.join('\r\n')}\n{"id":999,"text":"=last, no newline"}`, columns, 3);
  let index = 0;
  for (const sort of sorts) {
    for (const range of ranges) {
      for (const choice of columnChoices) {
        const selection: Selection = { sort, ...(range === undefined ? {} : { range }), ...(choice === undefined ? {} : { columns: choice }) };
        const dialect = dialects[index % dialects.length] as Pick<Options, 'delimiter' | 'formulaGuard'>;
        index += 1;
        await assertSame(index % 2 === 0 ? file : noNewlineAtEnd, {
          selection,
          ...dialect,
          bom: index % 3 !== 0,
          ...(index % 5 === 0 ? { locale: 'de-DE' } : {}),
        });
      }
    }
  }
  for (const dialect of dialects) for (const bom of [true, false]) await assertSame(file, { selection: { sort: [] }, ...dialect, bom });
});

test('CSV from JSONL: invalid UTF-8, a line too odd for the scanner, and failing lines behave as before (same bytes or the same error)', async () => {
  const good = Buffer.from('{"id":1,"text":"ok"}\n', 'utf8');
  const bad = Buffer.concat([Buffer.from('{"id":2,"text":"bad \xff byte', 'latin1'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n{"id":3,"text":"after"}\n')]);
  const mixedFile = await tableFile(Buffer.concat([good, bad]), ['id', 'text']);
  for (const sort of [[], [{ column: 'text', direction: 'asc' as const }]]) await assertSame(mixedFile, { selection: { sort } });
  const failing = [
    '{"id":1,"text":}',
    '[1,2]',
    '"just a string"',
    '{"id":1} trailing',
    '{"id":1,"text":"\u0001 raw control"}',
    '{"id":1,"other":"\\q bad escape in a column nobody asked for"}',
    '{"id":1,"other":{"broken":[1,}}',
    '{"id":01}',
    '{"id":1.}',
    '{"id":-}',
    '{"id":1e}',
    '{"id":tru}',
    '{"id":1,}',
    "{'id':1}",
    '{"id":1',
  ];
  for (const line of failing) {
    const file = await tableFile(`{"id":0,"text":"before"}\n${line}\n{"id":9,"text":"after"}\n`, ['id', 'text']);
    await assertSame(file, { selection: { sort: [] } });
    await assertSame(file, { selection: { sort: [{ column: 'id', direction: 'desc' }] } });
    // A range that ends before the failing line: the row reader still reads (and refuses) the whole chunk.
    await assertSame(file, { selection: { sort: [], range: { start: 0, count: 1 } } });
  }
  const empty = await tableFile('', ['id']);
  await assertSame(empty, { selection: { sort: [] } });
  await assertSame(empty, { selection: { sort: [], range: { start: 0, count: 0 } } });
  const noColumns = await tableFile('{"id":1}\n', []);
  await assertSame(noColumns, { selection: { sort: [] } });
  const unknown = await tableFile('{"id":1}\n', ['id']);
  await assertSame(unknown, { selection: { sort: [], columns: [{ name: 'nope', header: 'nope' }] } });
});

test('CSV from JSONL: many rows across read chunks, sorted and not, with a range in the middle', async () => {
  const lines: string[] = [];
  for (let index = 0; index < 30_000; index += 1) {
    const text = awkwardText[index % awkwardText.length] as string;
    lines.push(JSON.stringify({ id: index, amount: index % 11 === 0 ? null : ((index * 7919) % 1000) / 8, text, note: `${'x'.repeat(index % 50)},${index}` }));
  }
  // Lines longer than a read chunk (1 MiB): the carried part of a line grows the buffer.
  lines.splice(10_000, 0, JSON.stringify({ id: -1, amount: 1, text: `=${'long '.repeat(600_000)}`, note: 'é'.repeat(700_000) }));
  const file = await tableFile(`${lines.join('\n')}\n`, ['id', 'amount', 'text', 'note']);
  await assertSame(file, { selection: { sort: [] } });
  await assertSame(file, { selection: { sort: [], range: { start: 12_345, count: 9_000 } } });
  await assertSame(file, { selection: { sort: [{ column: 'amount', direction: 'desc' }] } });
  await assertSame(file, { selection: { sort: [{ column: 'amount', direction: 'asc' }], range: { start: 7_000, count: 10_000 } } });
  await assertSame(file, {
    selection: {
      sort: [
        { column: 'text', direction: 'asc' },
        { column: 'amount', direction: 'desc' },
      ],
    },
    delimiter: ';',
  });
});

/** A JSON number as text: any the grammar allows, not only the ones JSON.stringify writes. */
const numberText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.integer().map(String),
  fc.stringMatching(/^-?(0|[1-9][0-9]{0,22})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?$/),
);
const textValue = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom(...awkwardText), fc.string({ unit: 'grapheme', maxLength: 8 }));
/** A value as raw JSON text. */
const rawValue = fc.oneof(
  { weight: 4, arbitrary: textValue.map((text) => JSON.stringify(text)) },
  { weight: 3, arbitrary: numberText },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)) },
);
const keys = ['a', 'b', 'c', 'é', 'x'];
const space = fc.constantFrom('', '', '', ' ', '\t', ' \r ');
const rawLine = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...keys), space, rawValue, space), { maxLength: 6 }), space)
  .map(
    ([entries, edge]) =>
      `${edge}{${entries.map(([key, before, value, after]) => `${before}${JSON.stringify(key)}${after}:${before}${value}${after}`).join(',')}}${edge}`,
  );
const sortKey = fc.record({ column: fc.constantFrom('a', 'b', 'c', 'é'), direction: fc.constantFrom('asc' as const, 'desc' as const) });

test('CSV from JSONL: the same bytes as the general writer on random tables and options (property)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.oneof({ weight: 12, arbitrary: rawLine }, { weight: 1, arbitrary: fc.constantFrom('', ' ') }), { maxLength: 25 }),
      fc.record({
        sort: fc.array(sortKey, { maxLength: 2 }),
        range: fc.option(fc.record({ start: fc.nat(30), count: fc.option(fc.nat(30), { nil: undefined }) }), { nil: undefined }),
        columns: fc.option(fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'é'), { minLength: 1 }), { nil: undefined }),
        delimiter: fc.constantFrom(',' as const, ';' as const, '\t' as const),
        formulaGuard: fc.boolean(),
        bom: fc.boolean(),
        crlf: fc.boolean(),
      }),
      async (lines, options) => {
        const file = await tableFile(lines.join(options.crlf ? '\r\n' : '\n'), ['a', 'b', 'c', 'é']);
        const range = options.range === undefined ? undefined : options.range.count === undefined ? { start: options.range.start } : options.range;
        const selection: Selection = {
          sort: options.sort,
          ...(range === undefined ? {} : { range }),
          ...(options.columns === undefined ? {} : { columns: options.columns.map((name) => ({ name, header: name })) }),
        };
        await assertSame(file, { selection, delimiter: options.delimiter, formulaGuard: options.formulaGuard, bom: options.bom });
        await rm(file);
        await rm(`${file}.meta.json`);
      },
    ),
    { numRuns: 300 },
  );
});

test('sortOrder on one numeric key (radix sort) is the stable comparator order: -0 ties 0, empty last either way (property)', () => {
  const value = fc.oneof(
    fc.double({ noNaN: true }),
    fc.constantFrom(0, -0, 1, -1, Infinity, -Infinity, Number.MAX_VALUE, -Number.MIN_VALUE, 2 ** 53),
    fc.integer({ min: -3, max: 3 }),
    fc.constant(null),
  );
  fc.assert(
    fc.property(fc.array(value, { maxLength: 200 }), fc.boolean(), (values, descending) => {
      const expected = values.map((_, index) => index).sort((i, j) => compareCells(values[i], values[j], descending) || i - j);
      assert.deepEqual(Array.from(sortOrder(values.length, [{ values, descending }])), expected);
    }),
    { numRuns: 500 },
  );
});

/** The export split over two threads, with segments small enough that every test file has many. */
const outcomes: string[] = [];
const splitSmall: typeof writeCsv = (task, progress) =>
  writeCsvSplit(task, progress, { segmentBytes: 4096, minBytes: 0, onOutcome: (outcome) => outcomes.push(outcome) });

test('CSV from JSONL over two threads: the same bytes, counts and mixed columns; a failing line gives the one-thread error', async () => {
  const lines = awkwardLines();
  const file = await tableFile(`\uFEFF${lines.join('\n')}`, columns);
  for (const dialect of dialects) for (const bom of [true, false]) await assertSame(file, { selection: { sort: [] }, ...dialect, bom }, splitSmall);
  await assertSame(
    file,
    {
      selection: {
        sort: [],
        columns: [
          { name: 'text', header: 'T' },
          { name: 'mixed', header: 'M' },
        ],
      },
    },
    splitSmall,
  );
  const many: string[] = [];
  for (let index = 0; index < 5_000; index += 1)
    many.push(JSON.stringify({ id: index, text: awkwardText[index % awkwardText.length], long: 'y'.repeat(index % 300) }));
  const manyFile = await tableFile(`${many.join('\r\n')}\r\n{"id":-1}`, ['id', 'text', 'long']);
  await assertSame(manyFile, { selection: { sort: [] } }, splitSmall);
  // One core: no split is tried (worthSplitting), so nothing to observe.
  const split = availableParallelism() > 1;
  assert.deepEqual(new Set(outcomes), new Set(split ? ['split'] : []));
  outcomes.length = 0;
  const padding = Array.from({ length: 400 }, (_, index) => JSON.stringify({ id: index, text: `row ${index}` })).join('\n');
  for (const line of ['{"id":1,"text":}', '{"id":1,"other":"\\q"}', '[1]']) {
    const failing = await tableFile(`${padding}\n${line}\n${padding}\n`, ['id', 'text']);
    await assertSame(failing, { selection: { sort: [] } }, splitSmall);
  }
  assert.deepEqual(outcomes, split ? ['one thread', 'one thread', 'one thread'] : []);
});
