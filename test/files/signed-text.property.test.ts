import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { guardFormula } from '../../src/files/formats/csv-cells.js';

test('formula guard: text starting with + or - is left alone only when it holds no call, reference or DDE link', () => {
  const plain = fc.stringMatching(/^[+-][-+ 0-9.,#/:;'"]{0,30}$/);
  fc.assert(fc.property(plain, (text) => assert.equal(guardFormula(text), text)));
  const call = fc.tuple(
    fc.constantFrom('+', '-'),
    fc.stringMatching(/^[0-9+ ]{0,5}$/),
    fc.constantFrom('SUM(', 'cmd|', 'A1', 'Sheet1!B2', '$B$3', 'HYPERLINK ('),
  );
  fc.assert(fc.property(call, ([sign, middle, tail]) => assert.equal(guardFormula(sign + middle + tail), `'${sign}${middle}${tail}`)));
  fc.assert(fc.property(fc.string(), (text) => assert.equal(guardFormula(`=${text}`), `'=${text}`)));
});
