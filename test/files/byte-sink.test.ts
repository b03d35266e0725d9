import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import { ByteSink } from '../../src/files/formats/csv-byte-sink.js';
import { writeChunk } from '../../src/files/pool/worker-output.js';

test('a block handed back after its write is filled again; a piece of a block or another size is not taken', () => {
  const sink = new ByteSink(64);
  const row = (byte: number, length: number) => {
    sink.copy(Buffer.alloc(length, byte), 0, length);
    sink.endRow();
    const blocks = sink.flush();
    assert.equal(blocks.length, 1);
    return blocks[0] as Buffer;
  };
  const first = row(0x61, 40);
  sink.recycle(first);
  // flush() starts the next block at once, so the block after that is the recycled one.
  const second = row(0x62, 10);
  const third = row(0x63, 12);
  assert.notEqual(second.buffer, first.buffer);
  assert.equal(third.buffer, first.buffer, 'the recycled memory is filled again');
  assert.equal(third.toString(), 'c'.repeat(12));

  sink.recycle(Buffer.alloc(32));
  sink.recycle(Buffer.allocUnsafeSlow(64).subarray(8));
  for (const block of [row(0x64, 5), row(0x65, 5), row(0x66, 5)]) {
    assert.equal(block.buffer.byteLength, 64, 'a block of the sink size, never the 32-byte buffer offered');
    assert.equal(block.byteOffset, 0, 'never the piece of a block offered');
  }
});

test('property: with every block recycled as soon as it is written, the bytes out are the bytes in, row for row', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ minLength: 0, maxLength: 90 }), { maxLength: 60 }), fc.integer({ min: 16, max: 128 }), (rows, blockBytes) => {
      const sink = new ByteSink(blockBytes);
      const written: Buffer[] = [];
      const drain = () => {
        for (const block of sink.flush()) {
          written.push(Buffer.from(block)); // what reached the file
          sink.recycle(block);
        }
      };
      rows.forEach((row, index) => {
        sink.copy(Buffer.from(row), 0, row.length);
        sink.endRow();
        if (index % 3 === 2) drain();
      });
      drain();
      assert.deepEqual(Buffer.concat(written), Buffer.concat(rows.map((row) => Buffer.from(row))));
    }),
  );
});

test('writeChunk says a chunk is free only once the stream has written it', async () => {
  const finishes: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 1 << 20,
    write(_chunk, _encoding, callback) {
      finishes.push(() => callback());
    },
  });
  let freed = false;
  await writeChunk(stream, Buffer.from('row\r\n'), () => (freed = true));
  assert.equal(freed, false, 'queued in the stream: still in use');
  assert.equal(finishes.length, 1);
  finishes[0]?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(freed, true);
});
