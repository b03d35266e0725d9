import { SpillwayError } from '../../errors.js';
import { closeNames } from '../../util/close-names.js';
import { formatCount } from '../../util/format.js';
import { cellKind, isMixed, kindNames, kindOf } from './cell-kinds.js';
import { compareCells } from './compare-cells.js';
import type { OutputColumn, Selection } from './selection.js';
import type { TableSource } from '../sources/table-source.js';

/** How far a long selection has got, for progress bars. */
export interface SelectionProgress {
  phase: 'reading' | 'sorting' | 'writing';
  bytesRead: number;
  bytes: number;
  rows: number;
}

export interface SelectRowsOptions {
  source: TableSource;
  selection: Selection;
  /** Refuse a selection of more rows than this (documents, draw_table). */
  maxRows?: number;
  /** The refusal; `atLeast` says the count is a lower bound (reading stopped early). */
  tooMany?: (count: number, atLeast: boolean) => SpillwayError;
  onProgress?: (progress: SelectionProgress) => void;
}

/** Facts about a selection, complete once its batches have been consumed. */
export interface SelectionStats {
  /** Rows delivered. */
  rows: number;
  /** Rows in the source, when it was read to the end (or its metadata says). */
  sourceRows: number | undefined;
  /** The range starts at or past the last row: the output has the header only. */
  rangePastEnd: boolean;
  /** Output columns holding more than one kind of value (numbers and text, ...). */
  mixedColumns: { column: string; kinds: string[] }[];
}

export interface SelectedRows {
  columns: OutputColumn[];
  /** Rows as arrays in `columns` order, a batch at a time; one pass only. */
  batches: AsyncIterable<unknown[][]>;
  stats: SelectionStats;
}

const outputBatchRows = 4096;

/**
 * Applies columns, sort and range to a table source. Without a sort, rows
 * stream through in constant memory and reading stops once the range is
 * filled; with a sort, the selected columns of every row are held (as arrays)
 * and sorted stably before the range is cut. Column names are checked before
 * any row is delivered.
 */
export async function selectRows(options: SelectRowsOptions): Promise<SelectedRows> {
  const { source, selection } = options;
  const available = source.knownColumns ?? (await discoverColumns(source, requestedNames(selection)));
  const columns = resolveColumns(selection, available, source.name);
  const fields = columns.map((column) => column.name);
  for (const key of selection.sort) if (!fields.includes(key.column)) fields.push(key.column);
  const stats: SelectionStats = { rows: 0, sourceRows: source.knownRows, rangePastEnd: false, mixedColumns: [] };
  const kinds = new Array<number>(columns.length).fill(0);
  const progress = (phase: SelectionProgress['phase']) =>
    options.onProgress?.({ phase, bytesRead: source.counter.bytesRead, bytes: source.bytes, rows: stats.rows });

  const start = selection.range?.start ?? 0;
  const count = selection.range?.count ?? Infinity;
  const maxRows = options.maxRows ?? Infinity;
  const refuse = (rows: number, atLeast: boolean): never => {
    throw (
      options.tooMany?.(rows, atLeast) ??
      new SpillwayError(
        'ROW_LIMIT',
        `The selection has ${atLeast ? 'more than ' : ''}${formatCount(rows)} rows; at most ${formatCount(maxRows)} are allowed here.`,
      )
    );
  };
  if (source.knownRows !== undefined) {
    const expected = Math.min(count, Math.max(0, source.knownRows - start));
    if (expected > maxRows) refuse(expected, false);
  }

  const track = (batch: unknown[][]) => {
    for (const row of batch) for (let index = 0; index < kinds.length; index += 1) kinds[index] = (kinds[index] as number) | kindOf(row[index]);
  };
  const finish = () => {
    stats.rangePastEnd = selection.range !== undefined && stats.sourceRows !== undefined && start >= stats.sourceRows && stats.sourceRows > 0;
    stats.mixedColumns = columns.flatMap((column, index) =>
      isMixed(kinds[index] as number) ? [{ column: column.name, kinds: kindNames(kinds[index] as number) }] : [],
    );
  };

  async function* streamed(): AsyncGenerator<unknown[][]> {
    let seen = 0;
    let complete = true;
    for await (const batch of source.batches()) {
      const out: unknown[][] = [];
      for (const row of batch) {
        seen += 1;
        if (seen <= start) continue;
        if (stats.rows + out.length >= count) {
          complete = false;
          break;
        }
        if (stats.rows + out.length >= maxRows) refuse(maxRows, true);
        out.push(project(row, fields));
      }
      progress('reading');
      if (out.length > 0) {
        stats.rows += out.length;
        track(out);
        yield out;
      }
      // Reading stops once the range is full (the source is not read to its end).
      if (stats.rows >= count) {
        complete = false;
        break;
      }
    }
    if (complete) stats.sourceRows = seen;
    finish();
  }

  async function* sorted(): AsyncGenerator<unknown[][]> {
    const all: unknown[][] = [];
    for await (const batch of source.batches()) {
      for (const row of batch) all.push(project(row, fields));
      progress('reading');
    }
    stats.sourceRows = all.length;
    progress('sorting');
    const order = sortOrder(
      all,
      selection.sort.map((key) => ({ index: fields.indexOf(key.column), descending: key.direction === 'desc' })),
    );
    const end = Math.min(all.length, start + count);
    if (end - start > maxRows) refuse(end - start, false);
    const width = columns.length;
    for (let at = start; at < end; at += outputBatchRows) {
      const batch = Array.from(order.subarray(at, Math.min(end, at + outputBatchRows)), (index) => all[index] as unknown[]);
      const out = width === fields.length ? batch : batch.map((row) => row.slice(0, width));
      stats.rows += out.length;
      track(out);
      progress('writing');
      yield out;
    }
    all.length = 0;
    finish();
  }

  return { columns, batches: selection.sort.length > 0 ? sorted() : streamed(), stats };
}

/**
 * A row's values for `fields`, missing ones as null. Plain property reads are
 * ~3× faster than Object.hasOwn checks; what a read can inherit from
 * Object.prototype (methods, or the prototype itself through "__proto__") can
 * never come from JSON, so it is recognised and treated as missing.
 */
function project(row: Record<string, unknown>, fields: string[]): unknown[] {
  const out = new Array<unknown>(fields.length);
  for (let index = 0; index < fields.length; index += 1) {
    const value = row[fields[index] as string];
    out[index] = value === undefined || typeof value === 'function' || value === objectPrototype ? null : value;
  }
  return out;
}

const objectPrototype: unknown = Object.prototype;

/**
 * The row order of a sort, as indexes into `rows` (stable: ties keep their
 * source order). Sorting a Uint32Array of indexes over keys pulled into their
 * own array is several times faster than sorting the row arrays themselves; a
 * single key whose values are all numbers (or empty) goes through a
 * Float64Array with empty values as NaN. Same order as {@link compareCells}.
 */
function sortOrder(rows: unknown[][], keys: { index: number; descending: boolean }[]): Uint32Array {
  const order = new Uint32Array(rows.length);
  for (let at = 0; at < order.length; at += 1) order[at] = at;
  const only = keys.length === 1 ? keys[0] : undefined;
  if (only !== undefined) {
    const sign = only.descending ? -1 : 1;
    let kinds = 0;
    for (const row of rows) kinds |= kindOf(row[only.index]);
    if (kinds === cellKind.number || kinds === 0) {
      const values = new Float64Array(rows.length);
      for (let at = 0; at < rows.length; at += 1) {
        const value = rows[at]?.[only.index];
        values[at] = typeof value === 'number' ? value : Number.NaN;
      }
      return order.sort((i, j) => {
        const x = values[i] as number;
        const y = values[j] as number;
        if (x !== x) return y !== y ? i - j : 1;
        if (y !== y) return -1;
        return x === y ? i - j : (x < y ? -1 : 1) * sign;
      });
    }
    if (kinds === cellKind.text) {
      const values = rows.map((row) => row[only.index] as string | null);
      return order.sort((i, j) => {
        const x = values[i] as string | null;
        const y = values[j] as string | null;
        if (x === null) return y === null ? i - j : 1;
        if (y === null) return -1;
        return x === y ? i - j : (x < y ? -1 : 1) * sign;
      });
    }
  }
  return order.sort((i, j) => {
    const a = rows[i] as unknown[];
    const b = rows[j] as unknown[];
    for (const key of keys) {
      const result = compareCells(a[key.index], b[key.index], key.descending);
      if (result !== 0) return result;
    }
    return i - j;
  });
}

function requestedNames(selection: Selection): string[] | undefined {
  if (selection.columns === undefined) return undefined;
  return [...selection.columns.map((column) => column.name), ...selection.sort.map((key) => key.column)];
}

/**
 * Column names of a source that carries none (a JSON array, JSONL without spill
 * metadata): a pass over the rows collecting keys in first-seen order. When the
 * call names its columns, the pass stops as soon as all of them have been seen.
 */
async function discoverColumns(source: TableSource, wanted: string[] | undefined): Promise<string[]> {
  const found = new Set<string>();
  const missing = new Set(wanted ?? []);
  const iterator = source.batches()[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) break;
      for (const row of next.value) {
        for (const key in row) {
          if (!Object.hasOwn(row, key)) continue;
          found.add(key);
          missing.delete(key);
        }
      }
      if (wanted !== undefined && missing.size === 0) break;
    }
  } finally {
    await iterator.return?.();
  }
  return [...found];
}

function resolveColumns(selection: Selection, available: string[], sourceName: string): OutputColumn[] {
  const known = new Set(available);
  const check = (name: string, role: string) => {
    // A source without rows has no columns to check against: the output gets the named header only.
    if (known.has(name) || available.length === 0) return;
    const similar = closeNames(name, available);
    const list =
      available.length === 0 ? 'it has no rows, so no columns' : `its columns are: ${available.slice(0, 200).join(', ')}${available.length > 200 ? ', …' : ''}`;
    throw new SpillwayError(
      'UNKNOWN_COLUMN',
      `Unknown ${role} ${JSON.stringify(name)} in ${sourceName}; ${list}.${similar.length > 0 ? ` Did you mean: ${similar.join(', ')}?` : ''}`,
      { column: name, columns: available, similar },
    );
  };
  for (const column of selection.columns ?? []) check(column.name, 'column');
  for (const key of selection.sort) check(key.column, 'sort column');
  return selection.columns ?? available.map((name) => ({ name, header: name }));
}
