import type { ByteSink } from './csv-byte-sink.js';

/**
 * Copies stored lines into `out` in the order `order[from..to)` (`lines` holds block,
 * start, end for each source row) until a block is ready to write; the next position.
 *
 * The lines are read in sorted order, straight from where the read pass stored them.
 * Grouping them first into buckets by output position (two near-sequential passes
 * instead of one random one) was faster on memory already in use, but it wrote the
 * whole output once more into memory the process had never touched, and here a first
 * touch costs a page fault per 4 KiB (~10 µs on this VM): a 1M-row sorted export
 * took 2.41–2.47 s this way against 2.70–2.74 s with buckets, and peaked at 251–256
 * instead of 327–343 MB (bench/README, exports).
 */
export function copySortedLines(
  out: ByteSink,
  sorted: { order: Uint32Array; from: number; to: number; blocks: readonly Buffer[]; lines: Uint32Array; onRow?: ((row: number) => void) | undefined },
): number {
  const { order, to, blocks, lines, onRow } = sorted;
  let position = sorted.from;
  while (position < to && out.ready.length === 0) {
    const row = order[position] as number;
    onRow?.(row);
    out.copy(blocks[lines[3 * row] as number] as Buffer, lines[3 * row + 1] as number, lines[3 * row + 2] as number);
    out.endRow();
    position += 1;
  }
  return position;
}
