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

/** Whether `part` is `whole` with some characters left out (in order). */
function isSubsequence(part: string, whole: string): boolean {
  let at = 0;
  for (const char of part) {
    at = whole.indexOf(char, at);
    if (at < 0) return false;
    at += char.length;
  }
  return true;
}

test('text without marks comes back whole; marked text only loses marks, never invents text or drops a plain word', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      const spans = inlineSpans(text);
      const joined = spans.map((span) => span.text).join('');
      if (!/[*_`[]/.test(text)) assert.equal(joined, text);
      // Removing marks may join neighbours ("!`!`" reads "!!"), so compare in order rather than word by word.
      assert.ok(isSubsequence(joined, text), JSON.stringify({ text, joined }));
      for (const word of text.split(/\s+/)) if (/^[A-Za-z0-9]+$/.test(word)) assert.ok(joined.includes(word), JSON.stringify({ text, word }));
    }),
    { numRuns: 2000 },
  );
});
