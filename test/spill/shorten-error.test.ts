import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { shortenError } from '../../src/spill/shorten-error.js';

test('a long traceback keeps its head and its last line (the exception)', () => {
  const lines = [
    'Traceback (most recent call last):',
    ...Array.from({ length: 5000 }, (_, i) => `  File "x.py", line ${i}, in f`),
    'ValueError: the real reason',
  ];
  const short = shortenError(lines.join('\n'), 200, 200, 'errors/0001-x.txt');
  assert.ok(short.startsWith('Traceback (most recent call last):'));
  assert.ok(short.endsWith('ValueError: the real reason'));
  assert.match(short, /characters omitted; the full text is in errors\/0001-x\.txt/);
  assert.ok(short.length < 700);
});

test('a short message is left alone', () => {
  assert.equal(shortenError('boom', 10, 10), 'boom');
});

test('property: never splits a surrogate pair', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme', minLength: 300, maxLength: 600 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 1, max: 50 }),
      (text, head, tail) => {
        assert.ok(shortenError(text, head, tail).isWellFormed());
      },
    ),
  );
});
