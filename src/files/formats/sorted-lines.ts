import type { ByteSink } from './csv-byte-sink.js';

/** Output lines grouped by where they go: position p is in bucket p >> bucketShift, at offsets[p], lengths[p] bytes. */
export interface ArrangedLines {
  buckets: Buffer[];
  offsets: Uint32Array;
  lengths: Uint32Array;
}

/** 4,096 lines a bucket (~400 KiB of a 10-column table): a bucket read in any order stays in the CPU's cache. */
const bucketShift = 12;

/**
 * Moves stored lines (in source order: `lines` holds block, start, end for
 * each) towards their sorted positions `from`..`to` of `order`, in two
 * cache-friendly passes instead of one random one: the lines are read in
 * source order and appended to the bucket of their output position; copying
 * a bucket's lines out in order then only jumps around inside that bucket.
 * Reading 100 MB of lines in random order costs several times a sequential
 * pass (cache and TLB misses); this keeps both passes close to sequential.
 * `onLine` sees each source row that is written, in source order.
 */
export function arrangeLines(options: {
  order: Uint32Array;
  from: number;
  to: number;
  blocks: readonly Buffer[];
  lines: Uint32Array;
  onLine?: (row: number) => void;
}): ArrangedLines {
  const { order, from, to, blocks, lines } = options;
  const positions = Math.max(0, to - from);
  const rank = new Int32Array(lines.length / 3).fill(-1);
  for (let position = 0; position < positions; position += 1) rank[order[from + position] as number] = position;
  const bucketCount = (positions + (1 << bucketShift) - 1) >>> bucketShift;
  const sizes = new Float64Array(bucketCount);
  const lengths = new Uint32Array(positions);
  for (let row = 0; row < rank.length; row += 1) {
    const position = rank[row] as number;
    if (position < 0) continue;
    const length = (lines[3 * row + 2] as number) - (lines[3 * row + 1] as number);
    lengths[position] = length;
    sizes[position >>> bucketShift] = (sizes[position >>> bucketShift] as number) + length;
  }
  const buckets = Array.from(sizes, (size) => Buffer.allocUnsafe(size));
  const filled = new Uint32Array(bucketCount);
  const offsets = new Uint32Array(positions);
  for (let row = 0; row < rank.length; row += 1) {
    const position = rank[row] as number;
    if (position < 0) continue;
    options.onLine?.(row);
    const bucket = position >>> bucketShift;
    const target = buckets[bucket] as Buffer;
    const source = blocks[lines[3 * row] as number] as Buffer;
    let at = filled[bucket] as number;
    offsets[position] = at;
    const end = lines[3 * row + 2] as number;
    for (let index = lines[3 * row + 1] as number; index < end; index += 1) target[at++] = source[index] as number;
    filled[bucket] = at;
  }
  return { buckets, offsets, lengths };
}

/** Copies arranged lines from position `from` on into `out` until a block is ready to write; the next position. */
export function copyArranged(out: ByteSink, arranged: ArrangedLines, from: number): number {
  const { buckets, offsets, lengths } = arranged;
  let position = from;
  while (position < offsets.length && out.ready.length === 0) {
    const start = offsets[position] as number;
    out.copy(buckets[position >>> bucketShift] as Buffer, start, start + (lengths[position] as number));
    out.endRow();
    position += 1;
  }
  return position;
}
