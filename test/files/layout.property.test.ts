import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { columnWidths, wantedWidth } from '../../src/files/layout/column-widths.js';
import { textEms, wrappedLines } from '../../src/files/layout/text-width.js';

test('wrapped lines: at least one per paragraph, never more in a wider box, one when the text fits', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 300 }),
      fc.double({ min: 1, max: 100, noNaN: true }),
      fc.double({ min: 0, max: 50, noNaN: true }),
      (text, width, extra) => {
        const lines = wrappedLines(text, width);
        assert.ok(lines >= text.split('\n').length);
        assert.ok(wrappedLines(text, width + extra) <= lines);
        if (!text.includes('\n') && textEms(text) <= width) assert.equal(lines, 1);
      },
    ),
  );
});

test('column widths never pass the table width, fill it when the content wants more, and give wide content more room', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.string({ maxLength: 80 }), { minLength: 3, maxLength: 3 }), { maxLength: 20 }),
      fc.integer({ min: 100, max: 2000 }),
      (rows, available) => {
        const cells = [0, 1, 2].map((column) => rows.map((row) => row[column] ?? ''));
        const widths = columnWidths({ headers: ['a', 'b', 'c'], cells, available, fontSize: 10, padding: 8 });
        const total = widths.reduce((sum, width) => sum + width, 0);
        assert.ok(total <= available + 1e-6);
        const wanted = wantedWidth({ headers: ['a', 'b', 'c'], cells, fontSize: 10, padding: 8 });
        if (wanted >= available) assert.ok(Math.abs(total - available) < 1e-6);
        for (const width of widths) assert.ok(width > 0);
      },
    ),
  );
  const widths = columnWidths({
    headers: ['id', 'note'],
    cells: [
      ['1', '2'],
      ['a long note that wants a lot of room on the page', 'short'],
    ],
    available: 500,
    fontSize: 10,
    padding: 8,
  });
  assert.ok((widths[1] ?? 0) > (widths[0] ?? 0) * 3);
});
