/**
 * A helper thread of a CSV export split over two threads (csv-segments.ts):
 * it opens the same source through the same sandbox checks, transcodes the
 * segments it is asked for and sends back their bytes (transferred, not
 * copied). Any failure is reported as such; the export then runs again on one
 * thread, which gives the exact error and line number.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { csvFromJsonl } from './csv-from-jsonl.js';
import type { SegmentRequest, SegmentReply, SegmentThreadData } from './csv-segments.js';
import { openTableSource } from '../sources/table-source.js';

const data = workerData as SegmentThreadData;
const opened = openTableSource(data.location);

parentPort?.on('message', (request: SegmentRequest) => {
  if (request.segment < 0) {
    // Done: close the file, then let the thread end.
    void opened.then((source) => source.close()).finally(() => parentPort?.close());
    return;
  }
  void answer(request).then((reply) => {
    const buffers = new Set<ArrayBuffer>();
    if (reply.ok) for (const block of reply.blocks) buffers.add(block.buffer as ArrayBuffer);
    parentPort?.postMessage(reply, [...buffers]);
  });
});

async function answer(request: SegmentRequest): Promise<SegmentReply> {
  try {
    const source = await opened;
    if (source.bytes !== data.bytes || source.readAt === undefined) return { ok: false, segment: request.segment };
    const blocks: Uint8Array[] = [];
    let kinds: Uint8Array = new Uint8Array(data.columns.length);
    const stats = await csvFromJsonl({
      source: { ...source, readAt: source.readAt },
      selection: data.selection,
      columns: data.columns,
      dialect: data.dialect,
      bom: false,
      write: (block) => {
        blocks.push(block);
        return Promise.resolve();
      },
      segment: { from: request.from, to: request.to },
      onKinds: (seen) => (kinds = seen),
    });
    return { ok: true, segment: request.segment, rows: stats.rows, kinds, blocks };
  } catch {
    return { ok: false, segment: request.segment };
  }
}
