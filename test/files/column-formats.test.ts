import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { normalizeColumnFormat } from '../../src/files/columns/column-format.js';
import { csvFormatter, displayFormatter, excelNumberFormat, excelValue, checkLocale } from '../../src/files/columns/format-values.js';
import { checkFormatFits, inferFormat } from '../../src/files/columns/infer-format.js';
import { parseIsoDate } from '../../src/files/columns/iso-date.js';
import { resolveFormats } from '../../src/files/columns/resolve-formats.js';

test('formats are inferred from the values: timestamps are dates, fractions get decimals, identifiers stay plain', () => {
  assert.deepEqual(inferFormat('created_at', ['2026-03-01T09:30:00Z', null, '2026-03-02T10:00:00+02:00']), { type: 'datetime' });
  assert.deepEqual(inferFormat('day', ['2026-03-01', '2026-03-02']), { type: 'date' });
  assert.deepEqual(inferFormat('amount', [1025678.02, 0.30000000000000004, 12]), { type: 'number', decimals: 2, thousands: true });
  assert.deepEqual(inferFormat('share', [0.125, 0.5]), { type: 'number', decimals: 4, thousands: true });
  assert.deepEqual(inferFormat('count', [1200, 5]), { type: 'number', decimals: 0, thousands: true });
  assert.deepEqual(inferFormat('customer_id', [1200, 5]), { type: 'number', decimals: 0, thousands: false });
  assert.deepEqual(inferFormat('year', [2025, 2026]), { type: 'number', decimals: 0, thousands: false });
  assert.deepEqual(inferFormat('order_no', ['000123', '000124']), { type: 'text' });
  assert.deepEqual(inferFormat('mixed', [1, 'two']), { type: 'text' });
  assert.deepEqual(inferFormat('empty', [null, null]), { type: 'text' });
});

test('format names and options are checked, with a coded error naming the field', () => {
  assert.deepEqual(normalizeColumnFormat('integer'), { type: 'number', decimals: 0, thousands: true });
  assert.deepEqual(normalizeColumnFormat({ type: 'currency', currency: 'eur' }), { type: 'currency', currency: 'EUR', decimals: 2 });
  assert.throws(
    () => normalizeColumnFormat('money', 'columns[2].'),
    (error: { code?: string; message: string; details?: { field?: string } }) => {
      assert.equal(error.code, 'FORMAT_INVALID');
      assert.equal(error.details?.field, 'columns[2].format');
      assert.match(error.message, /"currency"/);
      return true;
    },
  );
  assert.throws(() => normalizeColumnFormat('currency'), { code: 'FORMAT_INVALID' });
  assert.throws(() => normalizeColumnFormat({ type: 'number', decimals: 40 }), { code: 'FORMAT_INVALID' });
  assert.throws(() => checkLocale('not a locale!'), { code: 'FORMAT_INVALID' });
});

test('a format that does not fit the values is refused: a date format on text, a number format on words', () => {
  assert.throws(
    () => checkFormatFits({ column: 'name', format: { type: 'date' }, values: ['Zoë'] }),
    (error: { code?: string; message: string }) => {
      assert.equal(error.code, 'FORMAT_MISMATCH');
      assert.match(error.message, /Column "name"/);
      return true;
    },
  );
  assert.throws(() => resolveFormats([{ name: 'city', header: 'City', format: { type: 'number', decimals: 2, thousands: true } }], [['Berlin']]), {
    code: 'FORMAT_MISMATCH',
  });
  assert.doesNotThrow(() => checkFormatFits({ column: 'any', format: { type: 'text' }, values: [1, 'x', { a: 1 }] }));
});

test('display text follows the locale; XLSX gets exact values with a number format', () => {
  const amount = { type: 'number', decimals: 2, thousands: true } as const;
  assert.equal(displayFormatter(amount, 'en-US')(1025678.02), '1,025,678.02');
  assert.equal(displayFormatter(amount, 'de-DE')(1025678.02), '1.025.678,02');
  assert.equal(displayFormatter(amount, 'en-US')(0.30000000000000004), '0.30');
  assert.equal(displayFormatter(amount, 'en-US')(1e21), '1,000,000,000,000,000,000,000.00');
  assert.equal(displayFormatter({ type: 'percent', decimals: 1 }, 'en-US')(0.256), '25.6%');
  assert.equal(displayFormatter({ type: 'currency', currency: 'EUR', decimals: 2 }, 'de-DE')(12.5), '12,50\u00a0€');
  assert.equal(displayFormatter({ type: 'date' }, 'en-US')('2026-03-01T23:30:00+02:00'), 'Mar 1, 2026');
  assert.equal(displayFormatter({ type: 'datetime' }, 'en-GB')('2026-03-01T09:05:00Z'), '1 Mar 2026, 09:05');
  assert.equal(displayFormatter(amount, 'en-US')('n/a'), 'n/a');

  assert.equal(excelNumberFormat(amount, 'en-US'), '#,##0.00');
  assert.equal(excelNumberFormat({ type: 'number', decimals: 0, thousands: false }, 'en-US'), '0');
  assert.equal(excelNumberFormat({ type: 'percent', decimals: 0 }, 'en-US'), '0%');
  assert.equal(excelNumberFormat({ type: 'currency', currency: 'USD', decimals: 2 }, 'en-US'), '"$"#,##0.00');
  assert.equal(excelNumberFormat({ type: 'currency', currency: 'EUR', decimals: 2 }, 'de-DE'), '#,##0.00 "€"');
  assert.equal(excelNumberFormat({ type: 'date' }, 'en-US'), 'mm/dd/yyyy');
  assert.equal(excelNumberFormat({ type: 'date' }, 'de-DE'), 'dd.mm.yyyy');
  assert.equal(excelNumberFormat({ type: 'datetime' }, 'en-GB'), 'dd/mm/yyyy hh:mm');
  // A timestamp with an offset is the same instant in the stated zone (default UTC): 10:00+02:00 is 08:00 UTC.
  const cell = excelValue('2026-03-01T10:00:00+02:00', { type: 'datetime' });
  assert.ok(cell instanceof Date);
  assert.equal(cell.toISOString(), '2026-03-01T08:00:00.000Z');

  assert.equal(csvFormatter({ type: 'date' })?.('2026-03-01T10:00:00Z'), '2026-03-01');
  assert.equal(csvFormatter(amount)?.(2.5), '2.50');
  assert.equal(csvFormatter({ type: 'text' }), undefined);
});

test('ISO dates: only real calendar dates parse, and a parsed date prints back as written', () => {
  assert.equal(parseIsoDate('2026-02-30'), undefined);
  assert.equal(parseIsoDate('2026-13-01'), undefined);
  assert.equal(parseIsoDate('20260301'), undefined);
  assert.equal(parseIsoDate('2026-03-01 is the day'), undefined);
  fc.assert(
    fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }), (date) => {
      const text = date.toISOString();
      assert.equal(parseIsoDate(text)?.date.toISOString(), text);
      assert.equal(parseIsoDate(text.slice(0, 10))?.hasTime, false);
    }),
  );
});
