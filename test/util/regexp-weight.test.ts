// A model-supplied pattern's weight (its counted repetitions written out) and the cap that
// keeps one search from costing seconds a line (src/util/regexp-weight.ts, safe-regexp.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { regexpWeight } from '../../src/util/regexp-weight.js';
import { compileUserRegExp, maxPatternWeight } from '../../src/util/safe-regexp.js';

test('counted repetitions multiply what they repeat; nesting multiplies again; *, + and ? add nothing', () => {
  assert.equal(regexpWeight('a{3}'), 3);
  assert.equal(regexpWeight('(?:ab?){10}'), 20);
  assert.equal(regexpWeight('(?:x{5}){4}'), 20);
  assert.equal(regexpWeight('[A-Za-z0-9]{36,255}'), 255);
  assert.equal(regexpWeight('[a-z]{2,}'), 3);
  assert.equal(regexpWeight('\\d{4}-\\d{2}-\\d{2}'), 10);
  assert.equal(regexpWeight('(?P<year>\\d){4}'), 4);
  assert.equal(regexpWeight('(?i)abc|de'), 5);
  assert.equal(regexpWeight('[]{}]{3}'), 3, 'a class whose first member is ] is one atom');
  assert.equal(regexpWeight('\\p{Greek}{3}'), 3);
  assert.equal(regexpWeight('(?:\\w*\\s*){1000}'.repeat(6)), 12_000);
});

test('property: any text has a weight (never throws, never negative), and a{n} inside a group repeated m times weighs n·m', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (pattern) => {
      const weight = regexpWeight(pattern);
      assert.ok(Number.isFinite(weight) && weight >= 0);
    }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), fc.constantFrom('a', '.', '[a-z]', '\\w'), (inner, outer, atom) => {
      assert.equal(regexpWeight(`(?:${atom}{${inner}}){${outer}}`), inner * outer);
      assert.equal(regexpWeight(`x(?:${atom}{0,${inner}})y`), inner + 2);
    }),
  );
});

test('a pattern over the weight cap is refused with the weight and the cap; everyday patterns compile', () => {
  assert.throws(
    () => compileUserRegExp('(?:\\w*\\s*){1000}X'),
    (error: Error & { code?: string; details?: Record<string, unknown> }) =>
      error.code === 'INVALID_ARGUMENTS' && /2001 positions/.test(error.message) && error.details?.['maxWeight'] === maxPatternWeight,
  );
  for (const pattern of ['[A-Za-z0-9]{36,255}', 'ghp_[A-Za-z0-9]{36}', '\\d{1,3}(?:,\\d{3})*', '(?i)error|warn', `a{${maxPatternWeight}}`]) {
    assert.equal(typeof compileUserRegExp(pattern).test('x'), 'boolean', pattern);
  }
  assert.throws(() => compileUserRegExp(`a{${maxPatternWeight + 1}}`), { code: 'INVALID_ARGUMENTS' });
});
