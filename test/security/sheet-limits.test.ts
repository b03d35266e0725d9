import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { test } from 'node:test';
import ExcelJS from 'exceljs';
import XLSX from 'xlsx';
import { isRetryable } from '../../src/errors.js';
import { documentTableColumnLimit } from '../../src/files/formats/document-tables.js';
import { dataRowsPerSheet, excelSheetColumnLimit, excelSheetRowLimit, sheetsNeeded } from '../../src/files/formats/sheet-limit.js';
import { workerTask } from '../../src/files/pool/worker-run.js';
import { call, filesHost, ok, outputPath, readCsv, spillRows } from '../files/helpers.js';

/** One row of `count` numbered columns c0, c1, ... */
function wideRow(count: number): Record<string, number> {
  const row: Record<string, number> = {};
  for (let index = 0; index < count; index += 1) row[`c${index}`] = index;
  return row;
}

test('XLSX: a selection of 16,385 columns is refused with COLUMN_LIMIT before a byte is written; 16,384 columns fit one sheet', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const tooWide = await spillRows(env, [wideRow(excelSheetColumnLimit + 1)]);

  const refused = await call(env, 'export_table', { source: tooWide, format: 'xlsx', filename: 'wide.xlsx' });
  assert.equal(refused.error?.code, 'COLUMN_LIMIT', refused.text);
  assert.equal(isRetryable('COLUMN_LIMIT'), false);
  assert.match(refused.text, /at most 16,384 columns/);
  assert.match(refused.text, /16,385/);
  assert.match(refused.text, /columns/);
  assert.match(refused.text, /"csv" or "parquet"/);
  assert.deepEqual(refused.error?.details, { source: tooWide, columns: 16_385, limit: 16_384, format: 'xlsx' });
  // A later source of a workbook is checked the same way; the first one's sheet is thrown away with the file.
  const narrow = await spillRows(env, [{ a: 1 }]);
  const second = await call(env, 'export_table', { source: [narrow, tooWide], format: 'xlsx', filename: 'two.xlsx' });
  assert.equal(second.error?.code, 'COLUMN_LIMIT', second.text);
  assert.deepEqual(await readdir(outputPath(env, 'outputs')), [], 'nothing written to outputs/, no temporary file left');

  // What the message suggests works: fewer columns, or CSV with all of them.
  const named = ok(await call(env, 'export_table', { source: tooWide, format: 'xlsx', columns: ['c0', 'c16384'], filename: 'named.xlsx' }));
  assert.deepEqual(named.columns, ['c0', 'c16384']);
  const csv = ok(await call(env, 'export_table', { source: tooWide, format: 'csv', filename: 'all.csv' }));
  assert.equal((await readCsv(outputPath(env, csv.path)))[0]?.length, 16_385);

  // At the edge: 16,384 columns × 1 row, the last column XFD (SheetJS reads it back).
  const edge = await spillRows(env, [wideRow(excelSheetColumnLimit)]);
  // (The result's own text is large here, so it is read from the text, not a structured value.)
  const built = await call(env, 'export_table', { source: edge, format: 'xlsx', filename: 'edge.xlsx' });
  assert.equal(built.isError, false, built.text.slice(0, 300));
  assert.match(built.text, /outputs\/edge\.xlsx/);
  const workbook = XLSX.read(await readFile(outputPath(env, 'outputs/edge.xlsx')), { type: 'buffer' });
  const sheet = workbook.Sheets.Data as XLSX.WorkSheet;
  assert.equal(sheet['!ref'], 'A1:XFD2');
  assert.equal((sheet.XFD1 as XLSX.CellObject).v, 'c16383');
  assert.equal((sheet.XFD2 as XLSX.CellObject).v, 16_383);
});

test('XLSX rows: a sheet never holds more than 1,048,576 rows; more go on further sheets, and a larger sheet limit is refused', () => {
  assert.equal(dataRowsPerSheet(excelSheetRowLimit), 1_048_575);
  assert.equal(sheetsNeeded(1_048_575), 1);
  assert.equal(sheetsNeeded(1_048_576), 2);
  assert.throws(() => dataRowsPerSheet(excelSheetRowLimit + 1), RangeError);
  assert.throws(() => dataRowsPerSheet(1), RangeError);
});

test('DOCX and PPTX: a table of more than 63 columns is refused with COLUMN_LIMIT naming the limit and columns; 63 fit', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  assert.equal(documentTableColumnLimit, 63);
  const tooWide = await spillRows(env, [wideRow(64), wideRow(64)]);
  for (const format of ['docx', 'pptx']) {
    const spec = {
      title: 'Wide',
      blocks: [
        { type: 'heading', text: 'Rows' },
        { type: 'table', source: tooWide },
      ],
    };
    const refused = await call(env, 'build_document', { format, spec, filename: `wide.${format}` });
    assert.equal(refused.error?.code, 'COLUMN_LIMIT', refused.text);
    assert.match(refused.text, /blocks\[1\] would have 64 columns/);
    assert.match(refused.text, /at most 63/);
    assert.match(refused.text, /columns/);
    assert.deepEqual(refused.error?.details, { block: 1, source: tooWide, columns: 64, limit: 63 });
  }
  assert.deepEqual(await readdir(outputPath(env, 'outputs')), []);
  const edge = await spillRows(env, [wideRow(63)]);
  for (const format of ['docx', 'pptx']) {
    ok(await call(env, 'build_document', { format, spec: { title: 'Edge', blocks: [{ type: 'table', source: edge }] }, filename: `edge.${format}` }));
  }
});

test("a library's own error (exceljs past its bounds) reaches the caller as EXPORT_FAILED, its message in details.reason", async () => {
  const run = workerTask(
    async () => {
      // exceljs's real refusal, the raw error an XLSX past 16,384 columns gave before the check.
      new ExcelJS.Workbook().addWorksheet('Data').getCell(1, excelSheetColumnLimit + 1);
      return 'unreachable';
    },
    { format: 'xlsx', library: 'exceljs' },
  );
  const reply = await run({});
  assert.equal(reply.ok, false);
  if (reply.ok) return;
  assert.equal(reply.error.code, 'EXPORT_FAILED');
  assert.equal(reply.error.details?.library, 'exceljs');
  assert.equal(reply.error.details?.format, 'xlsx');
  assert.match(String(reply.error.details?.reason), /16385 is out of bounds/);
  assert.match(reply.error.message, /^Building the XLSX file failed: its writer \(exceljs\) reported ".*out of bounds.*"\. No file was written/);
  assert.equal(isRetryable('EXPORT_FAILED'), false);
});
