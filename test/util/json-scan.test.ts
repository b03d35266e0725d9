import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { skipStringBody } from '../../src/util/json-scan.js';

test('skipStringBody finds the closing quote of any JSON string, cut into two chunks anywhere (property)', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', 'u') }), fc.nat(), (value, cutAt) => {
      const text = `${JSON.stringify(value)},`;
      const cut = 1 + (cutAt % text.length);
      const scan = { escapePending: false };
      const first = skipStringBody(text.slice(0, cut), 1, scan);
      if (first !== -1) {
        assert.equal(first, text.length - 1);
        return;
      }
      const second = skipStringBody(text.slice(cut), 0, scan);
      assert.equal(cut + second, text.length - 1);
    }),
    { numRuns: 500 },
  );
});
