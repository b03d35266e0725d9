import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import XLSX from 'xlsx';
import { main } from '../../src/cli/main.js';
import { displayFormatter } from '../../src/files/columns/format-values.js';
import { inferFormat } from '../../src/files/columns/infer-format.js';
import { epochDate, parseIsoDate } from '../../src/files/columns/iso-date.js';
import { call, filesHost, ok, outputPath, spillRows, zipText, xmlUnescape } from './helpers.js';

test('a timestamp with an offset becomes the same instant in the stated zone (UTC by default); one without keeps its wall clock', () => {
  assert.equal(parseIsoDate('2026-03-01T10:00:00+02:00')?.date.toISOString(), '2026-03-01T08:00:00.000Z');
  assert.equal(parseIsoDate('2026-03-01T09:00:00-05:00')?.date.toISOString(), '2026-03-01T14:00:00.000Z');
  assert.equal(parseIsoDate('2026-03-01T09:30:00+0530')?.date.toISOString(), '2026-03-01T04:00:00.000Z');
  assert.equal(parseIsoDate('2026-03-01T09:30:00')?.date.toISOString(), '2026-03-01T09:30:00.000Z', 'no offset: as written');
  assert.equal(parseIsoDate('2026-03-01T09:30:00Z', 'Europe/Berlin')?.date.toISOString(), '2026-03-01T10:30:00.000Z', 'CET is UTC+1 in March');
  assert.equal(parseIsoDate('2026-07-01T09:30:00Z', 'Europe/Berlin')?.date.toISOString(), '2026-07-01T11:30:00.000Z', 'CEST in July');
  assert.equal(parseIsoDate('2026-03-01T09:30:00+19:00'), undefined, 'an offset past ±18:00 is not a time');
  assert.equal(parseIsoDate('2026-03-01T23:30:00-02:00')?.date.toISOString().slice(0, 10), '2026-03-02', 'the day moves with the zone');
  // Any instant written with any offset reads back as that instant in UTC.
  fc.assert(
    fc.property(
      fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
      fc.integer({ min: -14 * 4, max: 14 * 4 }),
      (date, quarters) => {
        const instant = Math.floor(date.getTime() / 1000) * 1000;
        const offset = quarters * 15;
        const local = new Date(instant + offset * 60_000).toISOString().slice(0, 19);
        const sign = offset < 0 ? '-' : '+';
        const text = `${local}${sign}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
        assert.equal(parseIsoDate(text)?.date.getTime(), instant);
      },
    ),
  );
});

test('epoch columns: recognised by name and range as times, else plain integers without thousands separators', () => {
  assert.deepEqual(inferFormat('updated_ms', [1_772_355_600_000, 1_772_355_660_000]), { type: 'datetime', epoch: 'milliseconds' });
  assert.deepEqual(inferFormat('created_at', [1_772_355_600]), { type: 'datetime', epoch: 'seconds' });
  assert.deepEqual(inferFormat('createdAt', [1_772_355_600]), { type: 'datetime', epoch: 'seconds' });
  assert.deepEqual(inferFormat('checksum', [1_772_355_600_000]), { type: 'number', decimals: 0, thousands: false }, 'in range, name silent: plain digits');
  assert.deepEqual(inferFormat('created_at', [5, 6]), { type: 'number', decimals: 0, thousands: true }, 'named, out of range: a count');
  assert.deepEqual(inferFormat('amount', [1_500_000, 2_000]), { type: 'number', decimals: 0, thousands: true });
  const show = displayFormatter({ type: 'datetime', epoch: 'milliseconds' }, 'en-GB');
  assert.equal(show(1_772_355_600_000), '1 Mar 2026, 09:00');
  assert.equal(epochDate(1_772_355_600, 'seconds', 'America/New_York').toISOString(), '2026-03-01T04:00:00.000Z');
});

test('export_table XLSX: mixed offsets sort by the real instant, in UTC named in the header; epochs are dates; leading-zero codes stay text', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = [
    { id: '000001', zip: '02134', account: '12345678901234567890', at: '2026-03-01T10:00:00+02:00', updated_ms: 1_772_355_600_000, amount: 1234.5 },
    { id: '000002', zip: '10115', account: '00000000000000000001', at: '2026-03-01T09:00:00-05:00', updated_ms: 1_772_355_660_000, amount: 20 },
    { id: '000003', zip: '75001', account: '98765432109876543210', at: '2026-03-01T09:30:00Z', updated_ms: 1_772_355_720_000, amount: 310.25 },
  ];
  const source = await spillRows(env, rows);
  const value = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'times.xlsx' }));
  assert.ok(
    value.notes?.some((note) => /"at", "updated_ms".*shown in UTC/.test(note)),
    `the result names the zone: ${JSON.stringify(value.notes)}`,
  );
  const workbook = XLSX.read(await readFile(outputPath(env, value.path)), { type: 'buffer', cellDates: true });
  const sheet = workbook.Sheets.Data as XLSX.WorkSheet;
  const records = XLSX.utils.sheet_to_json<Record<string, unknown>>(sheet, { raw: true });
  assert.deepEqual(Object.keys(records[0] ?? {}), ['id', 'zip', 'account', 'at (UTC)', 'updated_ms (UTC)', 'amount']);
  const times = records.map((record) => (record['at (UTC)'] as Date).toISOString().slice(0, 16));
  assert.deepEqual(times, ['2026-03-01T08:00', '2026-03-01T14:00', '2026-03-01T09:30']);
  // Sorted by the cells, the rows come in the order of the real instants: 08:00Z, 09:30Z, 14:00Z.
  const order = records
    .map((record, index) => ({ index, time: (record['at (UTC)'] as Date).getTime() }))
    .sort((a, b) => a.time - b.time)
    .map((entry) => entry.index);
  assert.deepEqual(order, [0, 2, 1]);
  assert.equal((records[0]?.['updated_ms (UTC)'] as Date).toISOString().slice(0, 16), '2026-03-01T09:00', 'epoch milliseconds are a date');
  for (const address of ['A2', 'B2', 'C2', 'C3']) {
    const cell = sheet[address] as XLSX.CellObject;
    assert.equal(cell.t, 's', `${address} stays text`);
  }
  assert.equal((sheet.A2 as XLSX.CellObject).v, '000001');
  assert.equal((sheet.C3 as XLSX.CellObject).v, '00000000000000000001');

  // Header and body in one font family: every text cell's style names Arial, and number headers stand right.
  const file = outputPath(env, value.path);
  const styles = await zipText(file, 'xl/styles.xml');
  const fonts = [...(/<fonts[^>]*>([\s\S]*?)<\/fonts>/.exec(styles)?.[1] ?? '').matchAll(/<font>([\s\S]*?)<\/font>/g)].map((match) => match[1] ?? '');
  // Whole <xf> elements: exceljs writes the alignment as a child element, <xf …><alignment horizontal="right" …/></xf>.
  const xfs = [...(/<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(styles)?.[1] ?? '').matchAll(/<xf\b[^>]*?(?:\/>|>[\s\S]*?<\/xf>)/g)].map((match) => match[0]);
  const sheetXml = await zipText(file, 'xl/worksheets/sheet1.xml');
  for (const cell of sheetXml.matchAll(/<c r="([A-Z]+\d+)"([^>]*)>/g)) {
    const style = Number(/ s="(\d+)"/.exec(cell[2] ?? '')?.[1] ?? 0);
    const fontId = Number(/fontId="(\d+)"/.exec(xfs[style] ?? '')?.[1] ?? 0);
    assert.match(fonts[fontId] ?? '', /<name val="Arial"\/>/, `cell ${cell[1]} is in Arial`);
  }
  const headerXf = (address: string) => xfs[Number(new RegExp(`<c r="${address}"[^>]* s="(\\d+)"`).exec(sheetXml)?.[1] ?? 0)] ?? '';
  for (const address of ['D1', 'E1', 'F1'])
    assert.match(headerXf(address), /<alignment [^>]*horizontal="right"/, `${address} (a date or number column) stands right`);
  for (const address of ['A1', 'B1', 'C1']) assert.doesNotMatch(headerXf(address), /horizontal="right"/, `${address} (a text column) does not stand right`);

  const berlin = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'berlin.xlsx', timeZone: 'Europe/Berlin' }));
  const inBerlin = XLSX.utils.sheet_to_json<Record<string, unknown>>(
    XLSX.read(await readFile(outputPath(env, berlin.path)), { type: 'buffer', cellDates: true }).Sheets.Data as XLSX.WorkSheet,
    { raw: true },
  );
  assert.equal((inBerlin[2]?.['at (Europe/Berlin)'] as Date).toISOString().slice(0, 16), '2026-03-01T10:30');

  const refused = await call(env, 'export_table', { source, format: 'xlsx', timeZone: 'Mars/Olympus' });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /timeZone "Mars\/Olympus" is not a time zone/);
});

test('export_table CSV: leading-zero and 20-digit codes keep their bytes, and the result says a spreadsheet would drop them', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [
    { id: '000001', zip: '02134', account: '12345678901234567890', name: 'a' },
    { id: '000002', zip: '10115', account: '1', name: 'b' },
  ]);
  const value = ok(await call(env, 'export_table', { source, format: 'csv', filename: 'codes.csv' }));
  assert.equal(await readFile(outputPath(env, value.path), 'utf8'), '\uFEFFid,zip,account,name\r\n000001,02134,12345678901234567890,a\r\n000002,10115,1,b\r\n');
  assert.equal(value.notes?.length, 1);
  assert.match(value.notes?.[0] ?? '', /"id" \(e\.g\. 000001\), "zip" \(e\.g\. 02134\), "account" \(e\.g\. 12345678901234567890\).*export as XLSX/);
});

test('build_document: timeZone in the spec converts offsets in tables and the header names the zone', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, [{ at: '2026-03-01T10:00:00+02:00' }, { at: '2026-03-01T09:00:00-05:00' }]);
  const spec = { title: 'Times', timeZone: 'America/New_York', blocks: [{ type: 'table', source }] };
  const value = ok(await call(env, 'build_document', { format: 'docx', spec, filename: 'times.docx' }));
  const xml = xmlUnescape(await zipText(outputPath(env, value.path), 'word/document.xml'));
  assert.match(xml, /at \(America\/New_York\)/);
  assert.match(xml, /Mar 1, 2026, 03:00 AM/, '08:00 UTC is 03:00 in New York');
  assert.match(xml, /Mar 1, 2026, 09:00 AM/);
  assert.ok(value.notes?.some((note) => /shown in America\/New_York/.test(note)));
  const bad = await call(env, 'build_document', { format: 'docx', spec: { ...spec, timeZone: 'Nowhere' } });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /\$\.timeZone "Nowhere" is not a time zone/);
});

test('draw_table and spillway export take a time zone per call, name it in the header and refuse an unknown one', async (t) => {
  const env = await filesHost();
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-zone-'));
  t.after(() => Promise.all([env.cleanup(), rm(dir, { recursive: true, force: true })]));
  const rows = [{ at: '2026-03-01T10:00:00+02:00' }, { at: '2026-03-01T09:00:00-05:00' }];
  const source = await spillRows(env, rows);
  const utc = await call(env, 'draw_table', { source });
  assert.match(utc.text, /\| at \(UTC\) \|[\s\S]*Mar 1, 2026, 08:00 AM[\s\S]*Mar 1, 2026, 02:00 PM/);
  assert.match(utc.text, /the times in "at" .* are shown in UTC/);
  const tokyo = await call(env, 'draw_table', { source, timeZone: 'Asia/Tokyo' });
  assert.match(tokyo.text, /\| at \(Asia\/Tokyo\) \|[\s\S]*Mar 1, 2026, 05:00 PM[\s\S]*Mar 1, 2026, 11:00 PM/);
  const bad = await call(env, 'draw_table', { source, timeZone: 'Nowhere' });
  assert.equal(bad.isError, true);
  assert.match(bad.text, /timeZone "Nowhere" is not a time zone/);

  const file = path.join(dir, 'times.jsonl');
  await writeFile(file, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const lines: string[] = [];
  const io = { out: (text: string) => void lines.push(text), err: (text: string) => void lines.push(text), interactive: false };
  assert.equal(await main(['export', file, '-o', path.join(dir, 'times.docx'), '--time-zone', 'America/New_York'], io), 0, lines.join('\n'));
  const xml = xmlUnescape(await zipText(path.join(dir, 'times.docx'), 'word/document.xml'));
  assert.match(xml, /at \(America\/New_York\)/);
  assert.match(xml, /Mar 1, 2026, 03:00 AM/, '08:00 UTC is 03:00 in New York');
  assert.match(lines.join('\n'), /shown in America\/New_York/);
  assert.equal(await main(['export', file, '-o', path.join(dir, 'x.csv'), '--time-zone', 'Nowhere'], io), 1);
  assert.match(lines.join('\n'), /--time-zone "Nowhere" is not a time zone/);
});
