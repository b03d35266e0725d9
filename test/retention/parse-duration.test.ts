import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SpillwayError } from '../../src/errors.js';
import { parseDuration } from '../../src/retention/parse-duration.js';

const unitMs = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

test('an amount with d, h or m is that many days, hours or minutes', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom('d', 'h', 'm'), (amount, unit) => {
      assert.equal(parseDuration(`${amount}${unit}`), amount * unitMs[unit]);
    }),
  );
  assert.equal(parseDuration('7d'), 7 * 86_400_000);
  assert.equal(parseDuration('36h'), 36 * 3_600_000);
  assert.equal(parseDuration('1.5d'), 36 * 3_600_000);
});

test('anything else is refused with INVALID_ARGUMENTS, never read as some other age', () => {
  const refused = (input: string) => {
    try {
      parseDuration(input);
      return false;
    } catch (error) {
      return SpillwayError.is(error) && error.code === 'INVALID_ARGUMENTS';
    }
  };
  fc.assert(
    fc.property(
      fc.string().filter((input) => !/^\s*\d+(\.\d+)?[dhm]\s*$/.test(input)),
      (input) => refused(input),
    ),
  );
  for (const input of ['7', '0d', '0h', '0.0m', '-3d', '7 d', '7days', 'd', '1e3d', '7D', '']) assert.ok(refused(input), input);
});
