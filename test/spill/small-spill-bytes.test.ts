import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import { ChunkWriter } from '../../src/spill/chunk-writer.js';
import { smallContent } from '../../src/spill/write-spill.js';

/** What the streamed path writes for the same lines: ChunkWriter into memory. */
async function streamed(lines: readonly string[], newline: boolean): Promise<{ bytes: Buffer; replacedInvalidUnicode: boolean }> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const writer = new ChunkWriter(sink);
  for (const line of lines) {
    const wait = writer.writeString(line, newline);
    if (wait) await wait;
  }
  await writer.end();
  return { bytes: Buffer.concat(chunks), replacedInvalidUnicode: writer.replacedInvalidUnicode };
}

// Any UTF-16 text, lone surrogates included (they are written as U+FFFD by both paths).
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 60 });

test('a small spill is encoded byte for byte as the streamed path would write it (JSONL lines, text, lone surrogates)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(anyText, { maxLength: 20 }), async (lines) => {
      const small = smallContent({ format: 'jsonl', lines, columns: [], columnTypes: {} });
      assert.ok(small !== undefined);
      const expected = await streamed(lines, true);
      assert.deepEqual(Buffer.from(small.bytes), expected.bytes);
      assert.equal(small.replacedInvalidUnicode, expected.replacedInvalidUnicode);
    }),
  );
  await fc.assert(
    fc.asyncProperty(anyText, async (text) => {
      const small = smallContent({ format: 'text', text });
      assert.ok(small !== undefined);
      const expected = await streamed([text], false);
      assert.deepEqual(Buffer.from(small.bytes), expected.bytes);
      assert.equal(small.replacedInvalidUnicode, expected.replacedInvalidUnicode);
    }),
  );
});

test('content past smallFileBytes is left to the streamed path', () => {
  assert.equal(smallContent({ format: 'text', text: 'x'.repeat(600 * 1024) }), undefined);
  assert.equal(smallContent({ format: 'jsonl', lines: Array.from({ length: 10_000 }, () => 'y'.repeat(100)), columns: [], columnTypes: {} }), undefined);
  assert.equal(smallContent({ format: 'binary', data: Buffer.alloc(600 * 1024), mimeType: 'image/png' }), undefined);
  assert.ok(smallContent({ format: 'binary', data: Buffer.alloc(1024), mimeType: 'image/png' }) !== undefined);
});
