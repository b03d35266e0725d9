import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { inlineSpans } from '../../src/files/layout/inline-text.js';

test('paragraph text: bold, italic, code and links become marked runs; the rest stays literal', () => {
  assert.deepEqual(inlineSpans('A **strong** and *repeat* or _other_ `orders` [dash](https://example.com/d) end'), [
    { text: 'A ' },
    { text: 'strong', bold: true },
    { text: ' and ' },
    { text: 'repeat', italic: true },
    { text: ' or ' },
    { text: 'other', italic: true },
    { text: ' ' },
    { text: 'orders', code: true },
    { text: ' ' },
    { text: 'dash', link: 'https://example.com/d' },
    { text: ' end' },
  ]);
  assert.deepEqual(inlineSpans('2 * 3 * 4, snake_case_name, **open'), [{ text: '2 * 3 * 4, snake_case_name, **open' }]);
  assert.deepEqual(inlineSpans('[x](javascript:alert(1))'), [{ text: '[x](javascript:alert(1))' }]);
});

test('text without marks comes back whole, and marked text never loses its words', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      const spans = inlineSpans(text);
      const joined = spans.map((span) => span.text).join('');
      if (!/[*_`[]/.test(text)) assert.equal(joined, text);
      for (const word of joined.split(/\s+/)) if (word !== '') assert.ok(text.includes(word));
    }),
  );
});
