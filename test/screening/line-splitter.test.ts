import assert from 'node:assert/strict';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { LineSplitter, readLinePieces, type LinePiece } from '../../src/tools/reread/line-splitter.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Feeds `text` to a splitter in chunks of the given sizes (cycled). */
function split(text: string, sizes: number[], maxPieceChars: number, overlap: number): LinePiece[] {
  const splitter = new LineSplitter(maxPieceChars, overlap);
  const out: LinePiece[] = [];
  let at = 0;
  for (let index = 0; at < text.length; index += 1) {
    const size = sizes[index % sizes.length] ?? 1;
    out.push(...splitter.push(text.slice(at, at + size)));
    at += size;
  }
  out.push(...splitter.end());
  return out;
}

/** The whole-string reference: lines as String.split gives them (no empty last line after a final break, CR of CRLF dropped). */
function wholeLines(text: string): string[] {
  const lines = text.split('\n').map((line, index, all) => (index < all.length - 1 && line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

const textArbitrary = fc
  .array(fc.oneof(fc.constantFrom('\n', '\r\n', 'ab', 'x', 'é', '😀', 'needle', 'nee'), fc.string({ maxLength: 8 })), { maxLength: 60 })
  .map((parts) => parts.join(''));

test('property: lines delivered chunk by chunk are the lines of the whole string, whatever the chunk sizes', () => {
  fc.assert(
    fc.property(textArbitrary, fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 5 }), (text, sizes) => {
      const pieces = split(text, sizes, 1_000_000, 0);
      assert.deepEqual(
        pieces.map((piece) => piece.text),
        wholeLines(text),
      );
      assert.deepEqual(
        pieces.map((piece) => piece.line),
        wholeLines(text).map((_, index) => index + 1),
      );
    }),
    { numRuns: 500 },
  );
});

test('property: with lines cut in overlapping pieces, the lines that match a literal are those a whole-string search finds', () => {
  fc.assert(
    fc.property(
      textArbitrary,
      fc.array(fc.integer({ min: 1, max: 13 }), { minLength: 1, maxLength: 4 }),
      fc.constantFrom('needle', 'ab', 'x', 'é😀', 'eene'),
      fc.integer({ min: 8, max: 20 }),
      (text, sizes, pattern, maxPieceChars) => {
        const pieces = split(text, sizes, maxPieceChars, pattern.length - 1);
        const chunked = new Set(pieces.filter((piece) => piece.text.includes(pattern)).map((piece) => piece.line));
        const whole = new Set(
          wholeLines(text)
            .map((line, index) => (line.includes(pattern) ? index + 1 : 0))
            .filter((line) => line > 0),
        );
        assert.deepEqual([...chunked].sort(), [...whole].sort());
        for (const piece of pieces) assert.ok(piece.text.length <= maxPieceChars, 'no piece is over the cap');
      },
    ),
    { numRuns: 500 },
  );
});

test('a file read in small chunks gives the same lines, and a multi-byte character split between reads stays whole', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'f.txt');
  const text = 'héllo wörld\n😀😀😀\nlast line without break';
  await writeFile(file, text);
  const handle = await open(file);
  t.after(() => handle.close());
  const lines: string[] = [];
  for await (const piece of readLinePieces(handle, { chunkBytes: 3, maxPieceChars: 1000, overlap: 0, maxBytes: 1 << 20 })) lines.push(piece.text);
  assert.deepEqual(lines, wholeLines(text));
});
