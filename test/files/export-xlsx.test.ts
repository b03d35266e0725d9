import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import XLSX from 'xlsx';
import { dataRowsPerSheet, excelSheetRowLimit, sheetsNeeded } from '../../src/files/formats/sheet-limit.js';
import { workerModules } from '../../src/files/pool/worker-modules.js';
import type { TableResult, TableTask, WorkerReply } from '../../src/files/pool/worker-task.js';
import { makeRows } from '../helpers/temp-host.js';
import { sortRows, trickyRows } from './fixtures.js';
import { call, filesHost, expectedSelection, ok, outputPath, spillRows, zipText } from './helpers.js';

/** Cell values of a sheet as SheetJS reads them (header row first), with their types. */
function sheetCells(workbook: XLSX.WorkBook, name: string): { values: unknown[][]; types: string[][]; formulas: number } {
  const sheet = workbook.Sheets[name];
  assert.ok(sheet, `sheet ${name} exists`);
  const range = XLSX.utils.decode_range(sheet['!ref'] ?? 'A1');
  const values: unknown[][] = [];
  const types: string[][] = [];
  let formulas = 0;
  for (let r = range.s.r; r <= range.e.r; r += 1) {
    const row: unknown[] = [];
    const rowTypes: string[] = [];
    for (let c = range.s.c; c <= range.e.c; c += 1) {
      const cell = sheet[XLSX.utils.encode_cell({ r, c })] as XLSX.CellObject | undefined;
      if (cell?.f !== undefined) formulas += 1;
      row.push(cell === undefined || cell.t === 'z' ? null : cell.v);
      rowTypes.push(cell === undefined ? 'z' : cell.t);
    }
    values.push(row);
    types.push(rowTypes);
  }
  return { values, types, formulas };
}

/** What a cell of the source becomes in XLSX: numbers and booleans as is, nested values as JSON text, empty as no cell. */
function xlsxValue(value: unknown): unknown {
  if (value === null) return null;
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

test('export_table XLSX: header, values and cell types match the source (SheetJS reads it back); text never becomes a formula', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = trickyRows();
  const source = await spillRows(env, rows);
  const value = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'tricky.xlsx' }));
  assert.equal(value.path, 'outputs/tricky.xlsx');
  const file = outputPath(env, value.path);
  const workbook = XLSX.read(await readFile(file), { type: 'buffer', cellFormula: true });
  assert.deepEqual(workbook.SheetNames, ['Data']);
  const { values, types, formulas } = sheetCells(workbook, 'Data');
  assert.equal(formulas, 0);
  assert.deepEqual(values[0], ['id', 'text', 'amount', 'flag', 'nested', 'group']);
  const expected = expectedSelection(rows, {}).map((row) => row.map(xlsxValue));
  assert.deepEqual(values.slice(1), expected);
  // numbers are numbers, booleans booleans, "=SUM(A1:A2)" is a string cell
  assert.equal(types[1]?.[0], 'n');
  assert.equal(types[1]?.[3], 'b');
  assert.equal(types[1]?.[1], 's');
  assert.equal(values[1]?.[1], '=SUM(A1:A2)');
  // frozen header row and column widths sized from the data
  const sheetXml = await zipText(file, 'xl/worksheets/sheet1.xml');
  assert.match(sheetXml, /<pane[^>]*ySplit="1"[^>]*state="frozen"|<pane[^>]*state="frozen"[^>]*ySplit="1"/);
  const widths: number[] = [];
  for (const match of sheetXml.matchAll(/<col min="(\d+)" max="(\d+)" width="([\d.]+)"/g)) {
    for (let column = Number(match[1]); column <= Number(match[2]); column += 1) widths[column - 1] = Number(match[3]);
  }
  assert.equal(widths.length, 6);
  assert.ok((widths[4] ?? 0) > (widths[0] ?? 0), `the nested column (long JSON) is wider than id: ${widths.join(', ')}`);
});

test('export_table XLSX: sort and range with renamed headers', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = sortRows(500);
  const source = await spillRows(env, rows);
  const sort = [{ column: 'score', direction: 'desc' as const }, { column: 'group' }];
  const range = { start: 40, count: 300 };
  const value = ok(await call(env, 'export_table', { source, format: 'xlsx', columns: ['id', { name: 'score', header: 'Score' }, 'group'], sort, range }));
  const workbook = XLSX.read(await readFile(outputPath(env, value.path)), { type: 'buffer' });
  const { values } = sheetCells(workbook, 'Data');
  assert.deepEqual(values[0], ['id', 'Score', 'group']);
  assert.deepEqual(values.slice(1), expectedSelection(rows, { columns: ['id', 'score', 'group'], sort, range }));
});

test('the XLSX sheet limit: 1,048,575 data rows fit one sheet with its header, 1,048,576 need two', () => {
  assert.equal(dataRowsPerSheet(excelSheetRowLimit), 1_048_575);
  assert.equal(sheetsNeeded(1_048_575), 1);
  assert.equal(sheetsNeeded(1_048_576), 2);
  assert.equal(sheetsNeeded(1_048_577), 2);
  assert.equal(sheetsNeeded(2 * 1_048_575), 2);
  assert.equal(sheetsNeeded(2 * 1_048_575 + 1), 3);
  assert.equal(sheetsNeeded(0), 1);
});

test('rows past a sheet limit are split over sheets, each with the header, and the result says so (limit lowered to 11)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = makeRows(21);
  const source = await spillRows(env, rows);
  // The worker module itself, with the sheet limit the tools never lower: 11 rows = header + 10.
  const module = (await import(workerModules.xlsx.href)) as { default: (task: TableTask) => Promise<WorkerReply<TableResult>> };
  const location = { root: env.sandboxRoot, principal: 'local', conversationId: 'c1' };
  for (const [count, sheets] of [
    [10, 1],
    [11, 2],
    [21, 3],
  ] as const) {
    const reply = await module.default({
      source: { kind: 'sandbox', ...location, path: source },
      selection: { sort: [], range: { start: 0, count } },
      output: { kind: 'sandbox', ...location, filename: `split-${count}.xlsx`, onExisting: 'refuse' },
      sheetRowLimit: 11,
    });
    assert.ok(reply.ok, JSON.stringify(reply));
    assert.equal(reply.result.sheets, sheets);
    assert.equal(reply.result.rows, count);
    if (sheets > 1) assert.match(reply.result.notes.join(' '), new RegExp(`split over ${sheets} sheets`));
    const workbook = XLSX.read(await readFile(reply.result.path), { type: 'buffer' });
    assert.equal(workbook.SheetNames.length, sheets);
    const all: unknown[][] = [];
    for (const name of workbook.SheetNames) {
      const { values } = sheetCells(workbook, name);
      assert.deepEqual(values[0], ['id', 'name', 'amount', 'active', 'note']);
      assert.ok(values.length <= 11);
      all.push(...values.slice(1));
    }
    assert.deepEqual(all, expectedSelection(rows, { range: { start: 0, count } }));
    assert.equal(path.basename(reply.result.path), `split-${count}.xlsx`);
  }
});
