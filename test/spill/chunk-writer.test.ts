import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import { ChunkWriter } from '../../src/spill/chunk-writer.js';

/** A stream that keeps copies of what it was given (the writer reuses its buffers). */
function collector(): { stream: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      setImmediate(callback);
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

async function writeAll(pieces: { text: string; newline: boolean }[]): Promise<{ out: Buffer; writer: ChunkWriter }> {
  const { stream, bytes } = collector();
  const writer = new ChunkWriter(stream);
  for (const piece of pieces) {
    const wait = writer.writeString(piece.text, piece.newline);
    if (wait) await wait;
  }
  await writer.end();
  return { out: bytes(), writer };
}

test('long texts are cut between code points and counted exactly', async () => {
  const text = `${'a'.repeat(349_524)}${'𝄞'.repeat(400_000)}é`;
  const { out, writer } = await writeAll([
    { text, newline: true },
    { text: 'x', newline: false },
  ]);
  assert.deepEqual(out, Buffer.from(`${text}\nx`));
  assert.equal(writer.bytes, out.length);
  assert.equal(writer.replacedInvalidUnicode, false);
});

test('many lines cross buffer boundaries without losing a byte; a lone surrogate is flagged', async () => {
  const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ i, text: 'ü'.repeat(i % 97) }));
  lines[12_345] = 'lone \ud800 here';
  const { out, writer } = await writeAll(lines.map((text) => ({ text, newline: true })));
  assert.deepEqual(out, Buffer.from(`${lines.join('\n')}\n`));
  assert.equal(writer.bytes, out.length);
  assert.equal(writer.replacedInvalidUnicode, true);
});

test('property: the bytes written are the UTF-8 of the pieces, whatever their sizes', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          text: fc.oneof(fc.string({ unit: 'binary', maxLength: 50 }), fc.string({ unit: 'grapheme', minLength: 100_000, maxLength: 120_000 })),
          newline: fc.boolean(),
        }),
        { maxLength: 12 },
      ),
      async (pieces) => {
        const { out, writer } = await writeAll(pieces);
        const expected = Buffer.concat(pieces.map((piece) => Buffer.from(piece.text + (piece.newline ? '\n' : ''))));
        assert.deepEqual(out, expected);
        assert.equal(writer.bytes, expected.length);
      },
    ),
    { numRuns: 40 },
  );
});
