import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { normalizeSelection, selectionFromArguments, selectionSchema, type SelectionArguments } from '../../src/files/selection/selection.js';

// Tools get columns/sort/range checked by the host's ajv against selectionSchema and
// only converted (selectionFromArguments); the CLI and spec files go through the
// hand checks of normalizeSelection. Both doors must accept and refuse the same inputs.
const validate = new Ajv({ allErrors: true, strict: false }).compile(Type.Object(selectionSchema));

// Weighted towards inputs the schema accepts, so both branches are exercised.
const often = <T>(arbitrary: fc.Arbitrary<T>) => ({ arbitrary, weight: 12 });
const rarely = <T>(arbitrary: fc.Arbitrary<T>) => ({ arbitrary, weight: 1 });
const count = fc.oneof(often(fc.integer({ min: -1, max: 50 })), rarely(fc.double({ min: -5, max: 50, noNaN: true })), rarely(fc.constant('3')));
const name = fc.oneof(often(fc.string({ minLength: 1, maxLength: 3 })), rarely(fc.constant('')));
const column = fc.oneof(
  often(name),
  often(fc.record({ name, header: fc.oneof(often(name), rarely(fc.integer())) }, { requiredKeys: ['name'] })),
  rarely(fc.integer()),
);
const sortKey = fc.record(
  { column: fc.oneof(often(name), rarely(fc.integer())), direction: fc.oneof(often(fc.constantFrom('asc', 'desc')), rarely(fc.constant('up'))) },
  { requiredKeys: ['column'] },
);
const selectionInput = fc.record(
  {
    columns: fc.oneof(often(fc.array(column, { maxLength: 3 })), rarely(fc.string())),
    sort: fc.oneof(often(sortKey), often(fc.array(sortKey, { maxLength: 3 })), rarely(fc.string())),
    range: fc.oneof(often(fc.record({ start: count, count }, { requiredKeys: ['start'] })), rarely(fc.record({ count })), rarely(fc.integer())),
  },
  { requiredKeys: [] },
);

test('the selection schema and normalizeSelection accept and refuse the same inputs, and convert them alike (property)', () => {
  let accepted = 0;
  fc.assert(
    fc.property(selectionInput, (input) => {
      if (validate(input)) {
        accepted += 1;
        assert.deepEqual(normalizeSelection(input), selectionFromArguments(input as SelectionArguments));
      } else {
        assert.throws(() => normalizeSelection(input), /columns|sort|range/, `ajv refused it: ${JSON.stringify(validate.errors)}`);
      }
    }),
    { numRuns: 1000 },
  );
  assert.ok(accepted >= 100 && accepted <= 900, `${accepted} of 1,000 inputs were valid; both kinds are needed`);
});
