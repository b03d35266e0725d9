import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import XLSX from 'xlsx';
import { main } from '../../src/cli/main.js';
import { parseColumns, parseRange, parseSort } from '../../src/cli/commands/export.js';
import { makeRows } from '../helpers/temp-host.js';
import { csvText, expectedSelection, readCsv, zipText } from './helpers.js';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (text: string) => void out.push(text), err: (text: string) => void err.push(text), interactive: false }, out, err };
}

test('spillway export: columns with headers, sort, range and -o, for people and scripts', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const rows = makeRows(500);
  const source = path.join(dir, 'rows.jsonl');
  await writeFile(source, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');

  const csvOut = path.join(dir, 'top.csv');
  const first = captureIo();
  const code = await main(['export', source, '--columns', 'id,amount:Amount (EUR)', '--sort', 'amount:desc,id', '--range', '10:25', '-o', csvOut], first.io);
  assert.equal(code, 0, first.err.join('\n'));
  assert.match(first.out.join('\n'), /Wrote .*top\.csv: 25 rows × 2 columns/);
  const records = await readCsv(csvOut);
  assert.deepEqual(records[0], ['id', 'Amount (EUR)']);
  const sort = [{ column: 'amount', direction: 'desc' as const }, { column: 'id' }];
  assert.deepEqual(
    records.slice(1),
    expectedSelection(rows, { columns: ['id', 'amount'], sort, range: { start: 10, count: 25 } }).map((row) => row.map(csvText)),
  );

  const refused = captureIo();
  assert.equal(await main(['export', source, '-o', csvOut], refused.io), 1);
  assert.match(refused.err.join('\n'), /already exists; pass --force/);
  assert.deepEqual(await readCsv(csvOut), records, 'the existing file is untouched');

  const json = captureIo();
  assert.equal(await main(['export', source, '--format', 'xlsx', '-o', path.join(dir, 'all.xlsx'), '--json'], json.io), 0);
  const report = JSON.parse(json.out.join('\n')) as { rows: number; format: string };
  assert.equal(report.rows, 500);
  const workbook = XLSX.read(await readFile(path.join(dir, 'all.xlsx')), { type: 'buffer' });
  assert.equal(XLSX.utils.sheet_to_json(workbook.Sheets.Data as XLSX.WorkSheet).length, 500);

  const docx = captureIo();
  assert.equal(await main(['export', source, '-o', path.join(dir, 'top.docx'), '--columns', 'id,name', '--range', '0:3'], docx.io), 0, docx.err.join('\n'));
  assert.match(docx.out.join('\n'), /3 table rows/);
  const documentXml = await zipText(path.join(dir, 'top.docx'), 'word/document.xml');
  assert.match(documentXml, /<w:tblHeader\/>/);
  assert.ok(['item-1', 'item-2', 'item-3'].every((name) => documentXml.includes(`>${name}<`)) && !documentXml.includes('>item-4<'));

  const badColumn = captureIo();
  assert.equal(await main(['export', source, '-o', path.join(dir, 'x.csv'), '--columns', 'nope'], badColumn.io), 1);
  assert.match(badColumn.err.join('\n'), /Unknown column "nope".*its columns are: id, name, amount, active, note/);
  const badRange = captureIo();
  assert.equal(await main(['export', source, '-o', path.join(dir, 'x.csv'), '--range=-1:5'], badRange.io), 1);
  assert.match(badRange.err.join('\n'), /range\.start must be a whole number/);
  const noFormat = captureIo();
  assert.equal(await main(['export', source, '-o', path.join(dir, 'x.txt')], noFormat.io), 1);
  assert.match(noFormat.err.join('\n'), /--format must be one of csv, xlsx, docx, pptx/);
});

test('spillway export argument parsers', () => {
  assert.deepEqual(parseColumns('id, amount:Amount: EUR'), ['id', { name: 'amount', header: 'Amount: EUR' }]);
  assert.deepEqual(parseSort('amount:DESC,name'), [
    { column: 'amount', direction: 'desc' },
    { column: 'name', direction: 'asc' },
  ]);
  assert.deepEqual(parseRange('0:100'), { start: 0, count: 100 });
  assert.deepEqual(parseRange('100:'), { start: 100 });
  assert.deepEqual(parseRange('7'), { start: 7 });
  assert.ok(Number.isNaN((parseRange('x:1') as { start: number }).start));
});
