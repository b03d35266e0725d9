import { SpillwayError } from '../errors.js';
import { formatBytes, formatCount } from '../util/format.js';

/**
 * What a row costs as a JSON object row (the shape query_sql returns and
 * spills): its values as JSON-safe values plus its column names, estimated
 * from lengths without serializing. Cheap enough to run on every row. Lists,
 * structs and maps (DuckDB, PostgreSQL arrays and json) count by what they hold.
 */
export function rowBytes(values: readonly unknown[], columnBytes: number): number {
  let bytes = columnBytes + 2;
  for (const value of values) bytes += valueBytes(value);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length <= 4096 ? value.length + 2 : Buffer.byteLength(value) + 2;
  if (typeof value === 'number') return 12;
  if (value === null) return 4;
  if (typeof value === 'object' && !(value instanceof Date)) return nestedBytes(value);
  return 8;
}

/** A list or an object, walked without recursion (a deep value cannot overflow the stack). */
function nestedBytes(value: object): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      bytes += 2 + item.length;
      for (const element of item) pending.push(element);
    } else if (typeof item === 'object' && item !== null && !(item instanceof Date)) {
      bytes += 2;
      for (const [key, element] of Object.entries(item)) {
        bytes += key.length + 4;
        pending.push(element);
      }
    } else bytes += valueBytes(item);
  }
  return bytes;
}

/** Bytes the column names add to every object row: `"name":` and a comma each. */
export function columnBytesOf(columns: readonly string[]): number {
  return columns.reduce((sum, column) => sum + column.length + 4, 0);
}

/** One row larger than the byte cap (sql.maxBytes, or `limit` for query_files): a clear error instead of a result no one can hold. */
export function rowTooLarge(rowNumber: number, bytes: number, maxBytes: number, limit = 'sql.maxBytes'): SpillwayError {
  return new SpillwayError(
    'RESULT_TOO_LARGE',
    `Row ${formatCount(rowNumber)} of the result is about ${formatBytes(bytes)}; one query result may be at most ${formatBytes(maxBytes)} (${limit}). ` +
      'Select fewer or shorter columns (substr(col, 1, 1000), length(col)) instead of whole large values.',
    { row: rowNumber, bytes, maxBytes, limit },
  );
}

/** SQLite ran out of the memory the query process allows it (PRAGMA hard_heap_limit). */
export function valueTooLarge(maxBytes: number): SpillwayError {
  return new SpillwayError(
    'RESULT_TOO_LARGE',
    `The query needed more memory than the query process allows (a value or an intermediate result far larger than sql.maxBytes = ${formatBytes(maxBytes)}). ` +
      'Select fewer or shorter columns (substr, length) or aggregate, and run it again.',
    { maxBytes, limit: 'sql.maxBytes' },
  );
}

/** SQLite's own heap limit for the query process: room for the result, its sort and its cache. */
export function sqliteHeapLimit(maxBytes: number): number {
  return Math.min(2 * maxBytes + 64 * 1024 * 1024, 2 ** 31);
}

/** The leading rows that fit in maxBytes (for sources whose rows arrive all at once); throws when the first row alone does not. */
export function rowsWithinBytes(rows: readonly unknown[][], columns: readonly string[], maxBytes: number | undefined): { rows: unknown[][]; cut: boolean } {
  if (maxBytes === undefined) return { rows: rows as unknown[][], cut: false };
  const columnBytes = columnBytesOf(columns);
  let bytes = 2;
  for (const [index, row] of rows.entries()) {
    const size = rowBytes(row, columnBytes);
    if (size > maxBytes) throw rowTooLarge(index + 1, size, maxBytes);
    if (bytes + size > maxBytes) return { rows: rows.slice(0, index) as unknown[][], cut: true };
    bytes += size;
  }
  return { rows: rows as unknown[][], cut: false };
}
