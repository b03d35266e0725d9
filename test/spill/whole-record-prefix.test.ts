import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonPrefix } from '../../src/spill/json-prefix.js';
import { wholeLinePrefix, wholeRecordPrefix } from '../../src/spill/whole-record-prefix.js';

const utf8 = (text: string) => Buffer.byteLength(text);

test('cuts between records and closes the brackets', () => {
  const records = ['{"a":1}', '{"a":2}', '{"a":3}'];
  assert.deepEqual(wholeRecordPrefix(records, 17), { text: '[{"a":1},{"a":2}]', count: 2 });
  assert.deepEqual(wholeRecordPrefix(records, 16), { text: '[{"a":1}]', count: 1 });
  assert.deepEqual(wholeRecordPrefix(records, 3), { text: '[]', count: 0 });
});

test('property: the whole-record prefix parses, is the first records in order, holds only whole records, and has no gaps', () => {
  const row = fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  const envelope = fc.oneof(
    fc.constant({ open: '[', close: ']' }),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }).map((fields) => {
      const text = JSON.stringify({ ...fields, rows: 0 });
      return { open: `${text.slice(0, text.lastIndexOf('0'))}[`, close: ']}' };
    }),
  );
  fc.assert(
    fc.property(fc.array(row, { maxLength: 40 }), fc.nat(3000), envelope, (rows, budget, { open, close }) => {
      const records = rows.map((value) => JSON.stringify(value));
      const prefix = wholeRecordPrefix(records, budget, { open, close, measure: utf8 });
      const parsed: unknown = JSON.parse(prefix.text);
      const shown = Array.isArray(parsed) ? parsed : ((parsed as Record<string, unknown>).rows as unknown[]);
      assert.ok(Array.isArray(shown));
      assert.equal(shown.length, prefix.count);
      assert.deepEqual(
        shown,
        records.slice(0, prefix.count).map((record) => JSON.parse(record)),
      );
      if (prefix.count > 0) assert.ok(utf8(prefix.text) <= budget, 'within budget');
      if (prefix.count < records.length) {
        // No gaps: the first record left out really did not fit.
        const next = wholeRecordPrefix(records.slice(0, prefix.count + 1), Number.MAX_SAFE_INTEGER, { open, close, measure: utf8 });
        assert.ok(utf8(next.text) > budget);
      }
    }),
    { numRuns: 1000 },
  );
});

test('property: a JSON value prefix always parses and never exceeds the budget by more than its closing brackets', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(400), (value, budget) => {
      const prefix = jsonPrefix(value, budget, utf8);
      JSON.parse(prefix.text);
      assert.ok(prefix.shown <= prefix.total);
    }),
    { numRuns: 1000 },
  );
});

test('property: the line prefix is whole lines of the text (or the start of the first line cut on a code point)', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { maxLength: 20 }), fc.nat(200), (lines, budget) => {
      const text = lines.join('\n');
      const prefix = wholeLinePrefix(text, budget, utf8);
      assert.ok(text.startsWith(prefix.text));
      assert.ok(utf8(prefix.text) <= budget || prefix.text.length === 0);
      assert.ok(prefix.text.isWellFormed());
      if (!prefix.cutInsideLine && prefix.text.length < text.length) assert.ok(prefix.text.length === 0 || prefix.text.endsWith('\n'));
    }),
    { numRuns: 1000 },
  );
});
