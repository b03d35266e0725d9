import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import XLSX from 'xlsx';
import { csvCell, csvLine, guardFormula } from '../../src/files/formats/csv-cells.js';
import { csvLineIn } from '../../src/files/formats/csv-dialect.js';
import { isSignedPlainText } from '../../src/files/formats/signed-text.js';
import { call, filesHost, ok, outputPath, readCsv, spillRows, startsFormulaAfterHidden, zipText } from '../files/helpers.js';

/** What may stand unseen before `=`: every width of space, line breaks, controls, zero-width and format characters. */
const hidden = [
  ' ',
  '   ',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '\u000B',
  '\u000C',
  '\u0001',
  '\u0085',
  '\u00A0',
  '\u00AD',
  '\u034F',
  '\u061C',
  '\u1680',
  '\u180E',
  ...Array.from({ length: 11 }, (_, index) => String.fromCharCode(0x2000 + index)),
  '\u200B',
  '\u200C',
  '\u200D',
  '\u200E',
  '\u200F',
  '\u2028',
  '\u2029',
  '\u202A',
  '\u202E',
  '\u202F',
  '\u205F',
  '\u2060',
  '\u2066',
  '\u3000',
  '\u3164',
  '\uFE0F',
  '\uFEFF',
  '\u{E0020}',
  '\u00A0\u200B',
  ' \uFEFF\u2060',
];
const triggers = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠', '﹦', '﹢', '﹣', '﹫'];
const bodies = ['=1+1', '=HYPERLINK("http://x.example","y")', '+SUM(1,2)', '-A1', '@SUM(A1)', '\t=1', '＝1+1', "-2+3+cmd|' /C calc'!A0"];

/** The guard as it was before invisible prefixes: spaces only (the bytes of every other cell must not change). */
function previousGuard(text: string): string {
  if (isSignedPlainText(text)) return text;
  return /^[ ]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/.test(text) ? `'${text}` : text;
}
function previousLine(values: string[]): string {
  const cells = values.map((value) => {
    const text = previousGuard(value);
    const quote = /[;,\t|][ "']*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/.test(value) || /[",\r\n]/.test(text);
    return quote ? `"${text.replaceAll('"', '""')}"` : text;
  });
  return `${cells.join(',')}\r\n`;
}

test('formula guard: a trigger after NBSP, zero-width space, BOM, word joiner or any other invisible run gets the apostrophe', () => {
  for (const prefix of hidden) {
    for (const body of bodies) {
      const text = prefix + body;
      assert.equal(guardFormula(text), `'${text}`, JSON.stringify(text));
      // Read back by an independent CSV reader, with the comma dialect and the semicolon one.
      assert.deepEqual(parse(csvLine([text, 1])), [[`'${text}`, '1']], JSON.stringify(text));
      const semicolon = csvLineIn([text, 1], { delimiter: ';', formulaGuard: true });
      assert.deepEqual(parse(semicolon, { delimiter: ';' }), [[`'${text}`, '1']], JSON.stringify(text));
      // Switched off, the text is written exactly as in the source.
      assert.deepEqual(parse(csvLineIn([text], { delimiter: ',', formulaGuard: false })), [[text]]);
    }
  }
  // After another reader's delimiter too: "a;\u00A0=cmd" is quoted, so a semicolon reader keeps it whole.
  assert.equal(csvLine(['a;\u00A0=cmd']), '"a;\u00A0=cmd"\r\n');
  assert.equal(csvLine(['a|\u200B\uFEFF+SUM(1)']), '"a|\u200B\uFEFF+SUM(1)"\r\n');
});

test('formula guard (property): whatever invisible run comes first, a cell that starts a formula is never written as one', () => {
  const prefix = fc.array(fc.constantFrom(...hidden), { maxLength: 6 }).map((parts) => parts.join(''));
  fc.assert(
    fc.property(prefix, fc.constantFrom(...triggers), fc.string({ maxLength: 12 }), (run, trigger, tail) => {
      const text = run + trigger + tail;
      const guarded = guardFormula(text);
      // A bare "+"/"-" that computes nothing (a phone number, -5) keeps its treatment: written as is.
      if (run === '' && isSignedPlainText(text)) assert.equal(guarded, text);
      else assert.equal(guarded, `'${text}`, JSON.stringify(text));
      const [cell] = (parse(csvLine([text])) as string[][])[0] as string[];
      assert.ok(isSignedPlainText(cell as string) || !startsFormulaAfterHidden(cell as string), JSON.stringify(cell));
    }),
    { numRuns: 3000 },
  );
});

test('formula guard (property): no CSV reader (comma, semicolon, tab) gets a cell that starts a formula after an invisible run', () => {
  const piece = fc.constantFrom(...hidden, ...triggers, ';', ',', '|', '"', "'", 'cmd', 'a', '1');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
      const line = csvLine([parts.join(''), 1]);
      for (const delimiter of [',', ';', '\t']) {
        const rows = parse(line, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][];
        for (const cell of rows.flat()) {
          if (isSignedPlainText(cell)) continue;
          assert.ok(!startsFormulaAfterHidden(cell), `${JSON.stringify(parts.join(''))} read with ${JSON.stringify(delimiter)} gave ${JSON.stringify(cell)}`);
        }
      }
    }),
    { numRuns: 2000 },
  );
});

test('formula guard (property): text without an invisible character keeps its bytes exactly', () => {
  // Spaces, tabs and CRs were guarded before; every other character here is visible.
  const unit = fc.constantFrom(...triggers, ' ', ';', ',', '|', '"', "'", '.', 'e', 'E', '(', ')', '!', '$', ':', '/', 'A', 'x', '0', '1', '9', 'é', '中');
  fc.assert(
    fc.property(fc.array(fc.string({ unit, maxLength: 10 }), { minLength: 1, maxLength: 3 }), (cells) => {
      assert.equal(csvLine(cells), previousLine(cells), JSON.stringify(cells));
    }),
    { numRuns: 3000 },
  );
});

test('formula guard: numbers, signed figures, dates and phone numbers keep their treatment', () => {
  assert.equal(csvCell(-5), '-5');
  assert.equal(csvCell(1.5e3), '1500');
  assert.equal(csvCell(-0.25), '-0.25');
  for (const text of ['-5', '+5', '-1.5', '1.5e3', '2026-03-01', '-2026-03-01', '+4915112345678', '-- see ticket 4471', '12:30', 'abc', '']) {
    assert.equal(csvCell(text), text, text);
  }
  // Text "-1.5e3" reads as a sign before a cell reference ("E3") and was guarded before: it still is.
  assert.equal(csvCell('-1.5e3'), "'-1.5e3");
  // A space before a sign was guarded before and still is; NBSP and its kin now are too.
  assert.equal(csvCell(' -5'), "' -5");
  assert.equal(csvCell('\u00A0-5'), "'\u00A0-5");
  assert.equal(csvCell('\u200B+4915112345678'), "'\u200B+4915112345678");
  // Invisible characters not followed by a trigger are left alone.
  assert.equal(csvCell('\u00A0abc'), '\u00A0abc');
  assert.equal(csvCell('\uFEFF12'), '\uFEFF12');
});

/** Every prefix before every body, one row each, in a column "t". */
function prefixedRows(): { t: string; n: number }[] {
  return hidden.flatMap((prefix, index) => bodies.map((body, bodyIndex) => ({ t: prefix + body, n: index * 100 + bodyIndex })));
}

test('export_table CSV: invisible-prefixed formulas are guarded in the file (csv-parse reads it back); formulaGuard: false keeps them', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = prefixedRows();
  const source = await spillRows(env, rows);
  for (const delimiter of [',', ';'] as const) {
    const value = ok(
      await call(env, 'export_table', { source, format: 'csv', delimiter, filename: `guarded-${delimiter === ',' ? 'comma' : 'semicolon'}.csv` }),
    );
    const records = parse(await readFile(outputPath(env, value.path)), { bom: true, delimiter }) as string[][];
    assert.deepEqual(
      records.slice(1).map((record) => record[0]),
      rows.map((row) => `'${row.t}`),
    );
  }
  const raw = ok(await call(env, 'export_table', { source, format: 'csv', formulaGuard: false, filename: 'raw.csv' }));
  const records = await readCsv(outputPath(env, raw.path));
  assert.deepEqual(
    records.slice(1).map((record) => record[0]),
    rows.map((row) => row.t),
  );
});

test('export_table XLSX: invisible-prefixed formulas are text cells, never formulas (SheetJS and the sheet XML)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = prefixedRows();
  const source = await spillRows(env, rows);
  const value = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'prefixed.xlsx' }));
  const file = outputPath(env, value.path);
  const workbook = XLSX.read(await readFile(file), { type: 'buffer', cellFormula: true });
  const sheet = workbook.Sheets.Data as XLSX.WorkSheet;
  for (const [index, row] of rows.entries()) {
    const cell = sheet[XLSX.utils.encode_cell({ r: index + 1, c: 0 })] as XLSX.CellObject | undefined;
    assert.equal(cell?.t, 's', JSON.stringify(row.t));
    assert.equal(cell?.f, undefined, JSON.stringify(row.t));
    // Characters XML cannot hold (control characters) are dropped; the formula-like text itself is kept as text.
    const body = bodies[row.n % 100] as string;
    assert.ok(String(cell?.v).endsWith(body), `${JSON.stringify(row.t)} read back as ${JSON.stringify(cell?.v)}`);
  }
  assert.doesNotMatch(await zipText(file, 'xl/worksheets/sheet1.xml'), /<f[ >]/);
});

function findSoffice(): string | undefined {
  for (const candidate of ['soffice', 'libreoffice']) {
    const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

test('LibreOffice (slow: starts soffice) evaluates none of the guarded CSV cells, and does evaluate the unguarded =1+1', async (t) => {
  const soffice = findSoffice();
  if (soffice === undefined) {
    t.skip('LibreOffice (soffice) is not installed; .ci/run installs libreoffice-calc');
    return;
  }
  const env = await filesHost();
  t.after(() => env.cleanup());
  const profile = await mkdtemp(path.join(tmpdir(), 'spillway-lo-profile-'));
  const converted = await mkdtemp(path.join(tmpdir(), 'spillway-lo-xlsx-'));
  t.after(() => Promise.all([rm(profile, { recursive: true, force: true }), rm(converted, { recursive: true, force: true })]));
  const rows = prefixedRows();
  const source = await spillRows(env, rows);
  const guarded = ok(await call(env, 'export_table', { source, format: 'csv', columns: ['t'], filename: 'guarded.csv' }));
  const raw = ok(await call(env, 'export_table', { source, format: 'csv', columns: ['t'], formulaGuard: false, filename: 'raw.csv' }));
  // Comma, '"', UTF-8, from line 1; "remove spaces" on (token 11), the import that evaluates the most: " =1+1" too.
  const filter = 'CSV:44,34,76,1,,1033,false,true,false,false,true,-1,true';
  const files = [guarded.path, raw.path].map((relative) => outputPath(env, relative));
  await promisify(execFile)(
    soffice,
    [
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--headless',
      '--norestore',
      `--infilter=${filter}`,
      '--convert-to',
      'xlsx',
      '--outdir',
      converted,
      ...files,
    ],
    { timeout: 240_000 },
  );
  const formulas = async (name: string) => {
    const workbook = XLSX.read(await readFile(path.join(converted, name)), { type: 'buffer', cellFormula: true });
    const sheet = workbook.Sheets[workbook.SheetNames[0] as string] as XLSX.WorkSheet;
    return Object.keys(sheet).filter((address) => !address.startsWith('!') && (sheet[address] as XLSX.CellObject).f !== undefined);
  };
  assert.deepEqual(await formulas('guarded.xlsx'), []);
  // The control: without the guard LibreOffice runs the bare "=1+1" (and " =1+1" when it trims spaces), so the check above can fail.
  assert.ok((await formulas('raw.xlsx')).length > 0, 'LibreOffice evaluated no formula in the unguarded file');
});
