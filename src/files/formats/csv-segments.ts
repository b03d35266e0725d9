import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { csvFromJsonl, csvHeader, type CsvFromJsonlOptions } from './csv-from-jsonl.js';
import { mixedColumnsOf } from '../selection/cell-kinds.js';
import type { SelectionStats } from '../selection/select-rows.js';
import type { OutputColumn, Selection } from '../selection/selection.js';
import type { SourceLocation } from '../sources/table-source.js';
import type { CsvDialect } from './csv-dialect.js';

/** What a segment thread is started with. */
export interface SegmentThreadData {
  location: SourceLocation;
  bytes: number;
  selection: Selection;
  columns: OutputColumn[];
  dialect: CsvDialect;
}

/** Transcode bytes from..to (segment < 0: close the file and end). */
export interface SegmentRequest {
  segment: number;
  from: number;
  to: number;
}

export type SegmentReply = { ok: true; segment: number; rows: number; kinds: Uint8Array; blocks: Uint8Array[] } | { ok: false; segment: number };

/** How a large export is split: segment size, and the smallest file worth a second thread. */
export interface SplitPlan {
  segmentBytes: number;
  minBytes: number;
  /** Told whether a split export finished on two threads or fell back to one (tests). */
  onOutcome?: (outcome: 'split' | 'one thread') => void;
}

export const defaultSplit: SplitPlan = { segmentBytes: 16 * 1024 * 1024, minBytes: 48 * 1024 * 1024 };

/** A plain export (no sort, no range) of a file large enough, on a machine with a second core. */
export function worthSplitting(selection: Selection, bytes: number, plan: SplitPlan): boolean {
  return selection.sort.length === 0 && selection.range === undefined && bytes >= plan.minBytes && availableParallelism() > 1;
}

/**
 * A CSV export over two threads: the file is cut into segments at line ends;
 * this thread transcodes the even ones and a helper thread
 * (csv-segment-thread.ts, which opens the source through the same checks) the
 * odd ones, one segment ahead at most, and the bytes are written in file
 * order, so the file is the one-thread file. Undefined when anything failed
 * (an invalid line, the file changed, the helper died): the caller then
 * writes the file again on one thread, which gives the exact error and line.
 */
export async function segmentedCsv(
  options: Omit<CsvFromJsonlOptions, 'segment' | 'onKinds'> & { location: SourceLocation; plan: SplitPlan },
): Promise<SelectionStats | undefined> {
  const { source, columns, plan } = options;
  const data: SegmentThreadData = { location: options.location, bytes: source.bytes, selection: options.selection, columns, dialect: options.dialect };
  // Its heap holds one segment's output (~half the segment): a bound well above that; dying past it means one thread.
  const helper = new Worker(new URL('./csv-segment-thread.js', import.meta.url), { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  const replies = new Map<number, (reply: SegmentReply) => void>();
  let failed = false;
  const failAll = () => {
    failed = true;
    for (const resolve of replies.values()) resolve({ ok: false, segment: -1 });
    replies.clear();
  };
  helper.on('message', (reply: SegmentReply) => {
    replies.get(reply.segment)?.(reply);
    replies.delete(reply.segment);
  });
  helper.on('error', failAll);
  helper.on('exit', failAll);
  const count = Math.ceil(source.bytes / plan.segmentBytes);
  const starts = new Map<number, number>();
  const startOf = async (segment: number): Promise<number> => {
    let start = starts.get(segment);
    if (start === undefined) {
      start = await lineStartAfter(source.readAt, source.bytes, segment * plan.segmentBytes);
      starts.set(segment, start);
    }
    return start;
  };
  // Never rejects: a read that fails (the file closed or changed) is a failed segment, and the export falls back to one thread.
  const ask = async (segment: number): Promise<SegmentReply> => {
    let request: SegmentRequest;
    try {
      request = { segment, from: await startOf(segment), to: await startOf(segment + 1) };
    } catch {
      return { ok: false, segment };
    }
    if (failed) return { ok: false, segment };
    return new Promise<SegmentReply>((resolve) => {
      replies.set(segment, resolve);
      helper.postMessage(request);
    });
  };
  const kinds = new Uint8Array(columns.length);
  const addKinds = (seen: Uint8Array) => seen.forEach((flags, index) => (kinds[index] = (kinds[index] as number) | flags));
  let rows = 0;
  let pending: Promise<SegmentReply> | undefined;
  try {
    await options.write(Buffer.from(csvHeader(columns, options.dialect, options.bom)));
    pending = count > 1 ? ask(1) : undefined;
    for (let segment = 0; segment < count; segment += 2) {
      const stats = await csvFromJsonl({
        ...options,
        segment: { from: await startOf(segment), to: await startOf(segment + 1) },
        onKinds: addKinds,
      });
      rows += stats.rows;
      if (pending === undefined) continue;
      const reply = await pending;
      if (!reply.ok) return undefined;
      pending = segment + 3 < count ? ask(segment + 3) : undefined;
      for (const block of reply.blocks) await options.write(Buffer.from(block.buffer, block.byteOffset, block.byteLength));
      rows += reply.rows;
      addKinds(reply.kinds);
    }
  } catch {
    return undefined;
  } finally {
    helper.off('exit', failAll);
    // A segment asked for ahead may still be finding its line start in the source: it must be
    // done before the caller closes the source (or a read lands on a closed file).
    failAll();
    await pending;
    helper.postMessage({ segment: -1, from: 0, to: 0 } satisfies SegmentRequest);
    helper.unref();
  }
  return {
    rows,
    sourceRows: rows,
    rangePastEnd: false,
    mixedColumns: mixedColumnsOf(columns, kinds),
  };
}

/** Where a segment starting at `nominal` really starts: 0, or just after the first LF at or after nominal - 1 (the end when none). */
async function lineStartAfter(
  readAt: (buffer: Buffer, offset: number, length: number, position: number) => Promise<number>,
  bytes: number,
  nominal: number,
): Promise<number> {
  if (nominal <= 0) return 0;
  if (nominal >= bytes) return bytes;
  const probe = Buffer.allocUnsafe(64 * 1024);
  let position = nominal - 1;
  while (position < bytes) {
    const read = await readAt(probe, 0, probe.length, position);
    if (read === 0) break;
    const newline = probe.subarray(0, read).indexOf(0x0a);
    if (newline !== -1) return position + newline + 1;
    position += read;
  }
  return bytes;
}
