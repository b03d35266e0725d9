import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import XLSX from 'xlsx';
import { referenceRows } from '../fixtures/reference-report.js';
import { call, filesHost, ok, outputPath, spillRows, zipText } from './helpers.js';

function cellAt(workbook: XLSX.WorkBook, sheet: string, address: string): XLSX.CellObject {
  const cell = workbook.Sheets[sheet]?.[address] as XLSX.CellObject | undefined;
  assert.ok(cell, `${sheet}!${address} exists`);
  return cell;
}

test('export_table XLSX: timestamps are real date cells, numbers carry number formats, the header is filtered, frozen and in a named font', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = referenceRows(30);
  const source = await spillRows(env, rows);
  const value = ok(
    await call(env, 'export_table', {
      source,
      format: 'xlsx',
      filename: 'orders.xlsx',
      sheet: 'Orders March',
      locale: 'de-DE',
      columns: [
        'order_id',
        'created_at',
        'customer',
        'phone',
        'amount',
        { name: 'discount', format: 'percent' },
        { name: 'unit_price', format: { type: 'currency', currency: 'EUR' } },
      ],
    }),
  );
  assert.deepEqual(value.sheetNames, ['Orders March']);
  assert.deepEqual(value.formats, {
    order_id: 'number',
    created_at: 'datetime',
    customer: 'text',
    phone: 'text',
    amount: 'number',
    discount: 'percent',
    unit_price: 'currency',
  });
  const file = outputPath(env, value.path);
  // An independent reader (SheetJS) sees the types and formats.
  const workbook = XLSX.read(await readFile(file), { type: 'buffer', cellDates: true, cellNF: true });
  assert.deepEqual(workbook.SheetNames, ['Orders March']);
  const created = cellAt(workbook, 'Orders March', 'B2');
  assert.equal(created.t, 'd', 'a timestamp is a date cell');
  assert.ok(created.v instanceof Date);
  assert.equal(created.v.toISOString().slice(0, 16), String(rows[0]?.created_at).slice(0, 16));
  assert.equal(created.z, 'dd.mm.yyyy hh:mm');
  assert.equal(cellAt(workbook, 'Orders March', 'A2').z, '0', 'an identifier has no thousands separator');
  const amount = cellAt(workbook, 'Orders March', 'E3');
  assert.equal(amount.t, 'n');
  assert.equal(amount.v, rows[1]?.amount, 'the value stays exact');
  assert.equal(amount.z, '#,##0.00');
  assert.equal(cellAt(workbook, 'Orders March', 'F3').z, '0%');
  assert.equal(cellAt(workbook, 'Orders March', 'G2').z, '#,##0.00 "€"');
  const phone = cellAt(workbook, 'Orders March', 'D2');
  assert.equal(phone.t, 's');
  assert.equal(phone.v, rows[0]?.phone, 'a phone number stays text, unchanged');

  const sheetXml = await zipText(file, 'xl/worksheets/sheet1.xml');
  assert.match(sheetXml, /<autoFilter ref="A1:G1"\/>/);
  assert.match(sheetXml, /<pane[^>]*ySplit="1"/);
  const styles = await zipText(file, 'xl/styles.xml');
  assert.match(styles, /<font><b\/>.*?<name val="Arial"\/><\/font>/, 'the header font has a name');
});

test('export_table XLSX: a list of sources gives one sheet each, named by the call or after the tool', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const first = await spillRows(env, referenceRows(5));
  const second = await spillRows(env, [{ region: 'EMEA', revenue: 1200.5 }]);
  const named = ok(await call(env, 'export_table', { source: [first, second], format: 'xlsx', filename: 'two.xlsx', sheet: ['Orders', 'Regions'] }));
  assert.deepEqual(named.sheetNames, ['Orders', 'Regions']);
  assert.equal(named.rows, 6);
  const workbook = XLSX.read(await readFile(outputPath(env, named.path)), { type: 'buffer' });
  assert.deepEqual(workbook.SheetNames, ['Orders', 'Regions']);
  assert.equal(cellAt(workbook, 'Regions', 'B2').v, 1200.5);
  const derived = ok(await call(env, 'export_table', { source: [first, first], format: 'xlsx', filename: 'derived.xlsx', columns: ['order_id'] }));
  const tool = path.basename(first, '.jsonl').replace(/^\d+-/, '');
  assert.deepEqual(derived.sheetNames, [tool, `${tool} 2`]);
});

test('export_table XLSX: bad sheet names, a CSV with several sources, CSV options on XLSX and formats that do not fit get coded errors and leave no file', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, referenceRows(5));
  const refused = async (args: Record<string, unknown>, code: string, pattern: RegExp) => {
    const result = await call(env, 'export_table', { source, format: 'xlsx', filename: 'bad.xlsx', ...args });
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.equal(result.error?.code, code, result.text);
    assert.match(result.text, pattern);
  };
  await refused({ sheet: 'a/b' }, 'INVALID_ARGUMENTS', /sheet "a\/b" contains/);
  await refused({ sheet: 'x'.repeat(40) }, 'INVALID_ARGUMENTS', /31/);
  await refused({ format: 'csv', source: [source, source], filename: 'bad.csv' }, 'INVALID_ARGUMENTS', /one table/);
  await refused({ bom: false }, 'INVALID_ARGUMENTS', /CSV option/);
  await refused({ columns: [{ name: 'customer', format: 'date' }] }, 'FORMAT_MISMATCH', /Column "customer" cannot take the format "date"/);
  await refused({ columns: [{ name: 'amount', format: 'money' }] }, 'INVALID_ARGUMENTS', /format/);
  await refused({ columns: [{ name: 'amount', format: 'currency' }] }, 'FORMAT_INVALID', /currency needs a three-letter/);
  await refused({ locale: 'xx-not-a-locale-at-all' }, 'FORMAT_INVALID', /locale/);
  const outputs = await readdir(path.join(env.host.sandbox.conversation('c1').dir, 'outputs')).catch(() => []);
  assert.deepEqual(outputs, [], 'nothing half-written under any name');
});
