// The two-thread CSV export (src/files/formats/csv-segments.ts) must not leave a read of its
// source in flight when it gives up: its caller closes the source next, and a read that lands on
// a closed file rejected nowhere (an unhandled EBADF in CI).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { segmentedCsv } from '../../src/files/formats/csv-segments.js';
import { openTableSource, type TableSource } from '../../src/files/sources/table-source.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'spillway-csv-segments-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const segmentBytes = 4096;

test(
  'a split export that fails in its first segment waits for the look-ahead read before it returns',
  { skip: availableParallelism() < 2 && 'one core' },
  async () => {
    const rows = Array.from({ length: 1000 }, (_, index) => JSON.stringify({ id: index, text: `row ${index}` }));
    // The invalid line is in segment 0, so the main thread fails while the helper's next segment is being located.
    rows.splice(3, 0, '{"id":1,"text":}');
    const file = path.join(dir, 'failing.jsonl');
    const content = `${rows.join('\n')}\n`;
    await writeFile(file, content);
    await writeFile(
      `${file}.meta.json`,
      JSON.stringify({ path: 'results/failing.jsonl', format: 'jsonl', bytes: Buffer.byteLength(content), columns: ['id', 'text'] }),
    );
    assert.ok(Buffer.byteLength(content) > 3 * segmentBytes);

    const opened = await openTableSource({ kind: 'local', path: file });
    const realReadAt = opened.readAt as NonNullable<TableSource['readAt']>;
    let inFlight = 0;
    let releaseHeld: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    // The probe for segment 2's line start (the look-ahead of segment 1) is held until the main
    // thread has read segment 0's bytes, then let go one event-loop turn later: the main thread's
    // failure (parse, reject, return) runs in microtasks, so without the wait it returns first.
    const readAt = async (buffer: Buffer, offset: number, length: number, position: number): Promise<number> => {
      inFlight += 1;
      try {
        if (position === 2 * segmentBytes - 1) {
          await held;
          await new Promise((resolve) => setImmediate(resolve));
        }
        const read = await realReadAt(buffer, offset, length, position);
        if (position === 0) releaseHeld?.();
        return read;
      } finally {
        inFlight -= 1;
      }
    };
    const source = { ...opened, readAt };
    try {
      const stats = await segmentedCsv({
        source,
        location: { kind: 'local', path: file },
        selection: { sort: [] },
        columns: [
          { name: 'id', header: 'id' },
          { name: 'text', header: 'text' },
        ],
        dialect: { delimiter: ',', formulaGuard: true },
        bom: false,
        plan: { segmentBytes, minBytes: 0 },
        write: async () => undefined,
      });
      assert.equal(stats, undefined, 'an invalid line makes the split give up (the one-thread writer reports it)');
      assert.equal(inFlight, 0, 'no read of the source is still in flight when the split returns');
    } finally {
      await opened.close();
    }
  },
);
