import { isUtf8 } from 'node:buffer';
import { csvCell, csvLine } from './csv-cells.js';
import { csvLineIn, type CsvDialect } from './csv-dialect.js';
import { ByteSink } from './csv-byte-sink.js';
import { copySortedLines } from './sorted-lines.js';
import { JsonlLineScanner, slotType } from './jsonl-line-scanner.js';
import { kindOf, mixedColumnsOf } from '../selection/cell-kinds.js';
import { project, type SelectionProgress, type SelectionStats } from '../selection/select-rows.js';
import type { OutputColumn, Selection } from '../selection/selection.js';
import { sortOrder } from '../selection/sort-order.js';
import { jsonlLineChunks } from '../sources/jsonl-line-chunks.js';
import { parseLine } from '../sources/jsonl-rows.js';
import type { TableSource } from '../sources/table-source.js';

export interface CsvFromJsonlOptions {
  /** A JSONL source whose columns are known (a spill with its metadata). */
  source: TableSource & { readAt: NonNullable<TableSource['readAt']> };
  selection: Selection;
  /** The selection's output columns ({@link resolveColumns} on the source's known columns), at least one. */
  columns: OutputColumn[];
  dialect: CsvDialect;
  bom: boolean;
  /**
   * Writes a block of finished bytes (waits for the stream's drain). `written`, when the
   * writer calls it, says the block's memory is free again: it is refilled for a later block.
   */
  write: (block: Buffer, written?: () => void) => Promise<void>;
  onProgress?: (progress: SelectionProgress) => void;
  /** Only the rows of these bytes, without the header (one segment of a split export). */
  segment?: { from: number; to: number };
  /** Receives each output column's kinds (bit flags) when done. */
  onKinds?: (kinds: Uint8Array) => void;
}

const blockBytes = 256 * 1024;
const storeBlockBytes = 4 * 1024 * 1024;
const crlf = Buffer.from('\r\n');
const trueText = Buffer.from('true');
const falseText = Buffer.from('false');

/**
 * export_table's CSV from a JSONL spill without building row objects: each
 * line's bytes go straight to CSV bytes (see {@link JsonlLineScanner}); values
 * a cell does not hold byte for byte, and every line the scanner does not
 * take whole, go through JSON.parse and the same cell functions as
 * `selectRows` + `csvLine`, so the file is the same, byte for byte, as theirs.
 * A sort keeps each selected row as its finished CSV line plus its sort keys
 * (not the row's values), orders them as `selectRows` does and writes the
 * lines in that order. Columns without a named format only (formats are the
 * general writer's).
 */
export async function csvFromJsonl(options: CsvFromJsonlOptions): Promise<SelectionStats> {
  const { source, selection, dialect, columns } = options;
  const fields = [...new Set([...columns.map((column) => column.name), ...selection.sort.map((key) => key.column)])];
  const slots = Int32Array.from(columns, (column) => fields.indexOf(column.name));
  const width = columns.length;
  const scanner = new JsonlLineScanner(fields, dialect);
  const standard = dialect.delimiter === ',' && dialect.formulaGuard;
  const cellText = standard ? csvCell : (value: unknown) => csvLineIn([value], dialect).slice(0, -2);
  const delimiter = dialect.delimiter.charCodeAt(0);
  const stats: SelectionStats = { rows: 0, sourceRows: source.knownRows, rangePastEnd: false, mixedColumns: [] };
  const kinds = new Uint8Array(width);
  const start = selection.range?.start ?? 0;
  const count = selection.range?.count ?? Infinity;
  const progress = (phase: SelectionProgress['phase']) =>
    options.onProgress?.({ phase, bytesRead: source.counter.bytesRead, bytes: source.bytes, rows: stats.rows });

  const out = new ByteSink(blockBytes);
  if (options.segment === undefined) out.text(csvHeader(columns, dialect, options.bom));
  out.endRow();
  // The writer hands each block back once written: the sink refills it.
  const writeOut = (block: Buffer) => options.write(block, () => out.recycle(block));
  const drain = async () => {
    if (out.ready.length === 0) return;
    for (const block of out.flush()) await writeOut(block);
  };

  // The current line: scanned (fast) or parsed (`parsed` holds its values by field).
  let parsed: unknown[] | undefined;
  let line: Buffer = Buffer.alloc(0);
  const rowKinds = new Uint8Array(width);

  /** Writes the current row's CSV line into `sink` and its kinds into rowKinds. */
  const encode = (sink: ByteSink) => {
    if (parsed === undefined && encodeRaw(sink)) return;
    for (let column = 0; column < width; column += 1) {
      if (column > 0) sink.byte(delimiter);
      const slot = slots[column] as number;
      if (parsed !== undefined) {
        const value = parsed[slot];
        rowKinds[column] = kindOf(value);
        if (value !== null) sink.text(cellText(value));
        continue;
      }
      const type = scanner.types[slot];
      if (type === slotType.empty) {
        rowKinds[column] = 0;
        continue;
      }
      rowKinds[column] = scanner.kinds[slot] as number;
      if (type === slotType.raw) sink.copy(line, scanner.starts[slot] as number, scanner.ends[slot] as number);
      else if (type === slotType.true) sink.copy(trueText, 0, 4);
      else if (type === slotType.false) sink.copy(falseText, 0, 5);
      else sink.text(cellText(scanner.values[slot]));
    }
    sink.copy(crlf, 0, 2);
  };
  /**
   * The common row: every cell raw, a boolean or empty. Its length is known
   * before writing, so the block's room is checked once and the bytes go in
   * directly. False (nothing written) when a cell needs its text made.
   */
  const encodeRaw = (sink: ByteSink): boolean => {
    const { types, starts, ends } = scanner;
    let bound = width + 2;
    for (let column = 0; column < width; column += 1) {
      const slot = slots[column] as number;
      const type = types[slot];
      if (type === slotType.raw) bound += (ends[slot] as number) - (starts[slot] as number);
      else if (type === slotType.value) return false;
      else bound += 5;
    }
    sink.room(bound);
    const target = sink.buffer;
    let at = sink.at;
    for (let column = 0; column < width; column += 1) {
      if (column > 0) target[at++] = delimiter;
      const slot = slots[column] as number;
      const type = types[slot];
      if (type === slotType.empty) {
        rowKinds[column] = 0;
        continue;
      }
      rowKinds[column] = scanner.kinds[slot] as number;
      if (type === slotType.raw) {
        const end = ends[slot] as number;
        for (let index = starts[slot] as number; index < end; index += 1) target[at++] = line[index] as number;
      } else {
        const text = type === slotType.true ? trueText : falseText;
        for (let index = 0; index < text.length; index += 1) target[at++] = text[index] as number;
      }
    }
    target[at++] = 0x0d;
    target[at++] = 0x0a;
    sink.at = at;
    return true;
  };
  const track = () => {
    for (let column = 0; column < width; column += 1) kinds[column] = (kinds[column] as number) | (rowKinds[column] as number);
  };

  /**
   * Reads every line; `take` gets each row (false: stop after this chunk, as
   * the row reader stops after the batch), and reading also stops after a
   * chunk with rows once `full` says so. False when it stopped early.
   */
  const readRows = async (take: () => boolean, full: () => boolean, range?: { from: number; to: number }) => {
    const counted = { lines: 0 };
    for await (const chunk of jsonlLineChunks(source.readAt, source.name, counted, range)) {
      line = chunk.buffer;
      let rowsInChunk = 0;
      let more = true;
      let at = chunk.start;
      while (at < chunk.end) {
        let newline = chunk.buffer.indexOf(0x0a, at);
        if (newline === -1 || newline >= chunk.end) newline = chunk.end;
        counted.lines += 1;
        let end = newline;
        if (end > at && chunk.buffer[end - 1] === 0x0d) end -= 1;
        if (end > at) {
          const utf8 = chunk.utf8 || isUtf8(chunk.buffer.subarray(at, end));
          if (utf8 && scanner.scan(chunk.buffer, at, end)) parsed = undefined;
          else {
            const text = chunk.buffer.toString('utf8', at, end);
            const row = parseLine(text, 0, text.length, counted.lines, source.name);
            parsed = row === undefined ? undefined : project(row, fields);
            if (row === undefined) {
              at = newline + 1;
              continue;
            }
          }
          rowsInChunk += 1;
          // Rows past the range are still read to the end of the chunk, as the row reader does (an invalid line there still fails).
          if (more) more = take();
        }
        at = newline + 1;
      }
      if (rowsInChunk > 0) progress('reading');
      if (rowsInChunk > 0 && (!more || full())) return false;
      if (out.ready.length > 0) await drain();
    }
    return true;
  };

  if (options.segment !== undefined) {
    // One segment of a file split over threads: no header, no range, no sort (segmentedCsv in csv-segments.ts).
    await readRows(
      () => {
        encode(out);
        out.endRow();
        track();
        stats.rows += 1;
        return true;
      },
      () => false,
      options.segment,
    );
    stats.sourceRows = stats.rows;
  } else if (selection.sort.length === 0) {
    let seen = 0;
    const complete = await readRows(
      () => {
        seen += 1;
        if (seen <= start) return true;
        if (stats.rows >= count) return false;
        encode(out);
        out.endRow();
        track();
        stats.rows += 1;
        return true;
      },
      () => stats.rows >= count,
    );
    if (complete) stats.sourceRows = seen;
  } else {
    const store = new ByteSink(storeBlockBytes);
    const lines = new GrowingUint32(3);
    // Mixed columns count the rows written: with a range, each row's kinds are kept until the order is known.
    const everyRow = start === 0 && count === Infinity;
    const rowKindStore = new GrowingBytes(everyRow ? 0 : width);
    const keySlots = selection.sort.map((key) => fields.indexOf(key.column));
    const keys = keySlots.map(() => [] as unknown[]);
    let total = 0;
    await readRows(
      () => {
        encode(store);
        lines.push3(store.ready.length, store.currentRowStart, store.at);
        store.endRow();
        if (everyRow) track();
        else rowKindStore.push(rowKinds);
        keySlots.forEach((slot, index) => (keys[index] as unknown[]).push(keyValue(slot)));
        total += 1;
        return true;
      },
      () => false,
    );
    const blocks = store.flush();
    stats.sourceRows = total;
    progress('sorting');
    const order = sortOrder(
      total,
      selection.sort.map((key, index) => ({ values: keys[index] as unknown[], descending: key.direction === 'desc' })),
    );
    keys.length = 0;
    const end = Math.min(total, start + count);
    const storedKinds = rowKindStore.values();
    const lineTable = lines.values();
    // Kinds of the rows written, when a range keeps only some of them (else tracked while reading).
    const onRow = everyRow
      ? undefined
      : (row: number) => {
          for (let column = 0; column < width; column += 1) kinds[column] = (kinds[column] as number) | (storedKinds[row * width + column] as number);
        };
    for (let position = start; position < end;) {
      const next = copySortedLines(out, { order, from: position, to: end, blocks, lines: lineTable, onRow });
      stats.rows += next - position;
      position = next;
      progress('writing');
      await drain();
    }
    blocks.length = 0;
  }
  for (const block of out.flush()) await writeOut(block);
  options.onKinds?.(kinds);
  stats.rangePastEnd = selection.range !== undefined && stats.sourceRows !== undefined && start >= stats.sourceRows && stats.sourceRows > 0;
  stats.mixedColumns = mixedColumnsOf(columns, kinds);
  return stats;

  function keyValue(slot: number): unknown {
    if (parsed !== undefined) return parsed[slot];
    const type = scanner.types[slot];
    if (type === slotType.empty) return null;
    if (type === slotType.true) return true;
    if (type === slotType.false) return false;
    if (type === slotType.value) return scanner.values[slot];
    const from = scanner.starts[slot] as number;
    const to = scanner.ends[slot] as number;
    return scanner.kinds[slot] === 1 ? Number(line.toString('latin1', from, to)) : line.toString('utf8', from, to);
  }
}

/** The BOM (when asked for) and header line the general writer starts a CSV file with. */
export function csvHeader(columns: readonly OutputColumn[], dialect: CsvDialect, bom: boolean): string {
  const headers = columns.map((column) => column.header);
  return (bom ? '\uFEFF' : '') + (dialect.delimiter === ',' && dialect.formulaGuard ? csvLine(headers) : csvLineIn(headers, dialect));
}

/** A Uint32Array that grows as triples are pushed. */
class GrowingUint32 {
  private data = new Uint32Array(3 * 4096);
  private length = 0;
  constructor(private readonly stride: number) {}
  push3(a: number, b: number, c: number): void {
    if (this.length + this.stride > this.data.length) {
      const larger = new Uint32Array(this.data.length * 2);
      larger.set(this.data);
      this.data = larger;
    }
    this.data[this.length] = a;
    this.data[this.length + 1] = b;
    this.data[this.length + 2] = c;
    this.length += 3;
  }
  values(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Bytes appended a row at a time. */
class GrowingBytes {
  private data: Uint8Array;
  private length = 0;
  constructor(private readonly stride: number) {
    this.data = new Uint8Array(Math.max(1, stride) * 4096);
  }
  push(row: Uint8Array): void {
    if (this.length + this.stride > this.data.length) {
      const larger = new Uint8Array(this.data.length * 2);
      larger.set(this.data);
      this.data = larger;
    }
    this.data.set(row, this.length);
    this.length += this.stride;
  }
  values(): Uint8Array {
    return this.data.subarray(0, this.length);
  }
}
