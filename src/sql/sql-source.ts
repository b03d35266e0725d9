/** What every SQL source (demo SQLite, a SQLite file, PostgreSQL) offers query_sql. */

export interface SqlQuery {
  sql: string;
  /** Rows to return at most; the true total is still counted by the database. */
  maxRows: number;
  /** Bytes (as JSON object rows) to return at most (sql.maxBytes); fewer rows come back, and the result says so. */
  maxBytes?: number;
  /** The query is interrupted after this long. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface SqlResult {
  /** Column names in result order (duplicates renamed `name_2`, ...). */
  columns: string[];
  rows: Record<string, unknown>[];
  /**
   * Rows the whole query matches, counted by the database (not just those
   * returned); null when the rows came back but counting all of them did not
   * finish within the timeout.
   */
  total: number | null;
  /** Columns that held binary values, given as base64 strings. */
  blobColumns: string[];
  /** Notes on value conversions (integers too large for JSON numbers, renamed duplicate columns). */
  notes: string[];
  /** Set when sql.maxBytes (this many bytes) cut the rows before sql.maxRows did. */
  cutAtBytes?: number;
}

export type SqlSourceKind = 'demo' | 'sqlite' | 'postgres';

export interface SqlSource {
  readonly kind: SqlSourceKind;
  /** "SQLite" or "PostgreSQL": the dialect the model writes. */
  readonly dialect: 'SQLite' | 'PostgreSQL';
  /** Where it reads from, for logs and the startup banner (never includes a password). */
  readonly description: string;
  query(query: SqlQuery): Promise<SqlResult>;
  close(): Promise<void>;
}

/** Rows as arrays plus column names, as they come off the wire from a database. */
export interface RawSqlResult {
  columns: string[];
  rows: unknown[][];
  /** null while unknown (SQLite counts on a second request; a count can run out of time). */
  total: number | null;
  blobColumns: string[];
  notes: string[];
  cutAtBytes?: number;
}

/** Column names made unique (`id`, `id_2`) so rows can be objects without losing a column; one note says which. */
export function uniqueColumnNames(names: readonly string[], notes: string[]): string[] {
  const seen = new Map<string, number>();
  const used = new Set(names);
  const renamed: string[] = [];
  const unique = names.map((name) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    if (count === 1) return name;
    let candidate = `${name}_${count}`;
    while (used.has(candidate)) candidate = `${candidate}_`;
    used.add(candidate);
    renamed.push(`"${name}" → "${candidate}"`);
    return candidate;
  });
  if (renamed.length > 0) {
    const shown = renamed.slice(0, 10).join(', ');
    notes.push(
      `Repeated column names were renamed: ${shown}${renamed.length > 10 ? ` and ${renamed.length - 10} more` : ''}. Alias columns (AS) to choose names.`,
    );
  }
  return unique;
}

/** Turns array rows into objects keyed by the (unique) column names. */
export function toObjectRows(raw: RawSqlResult): SqlResult {
  const notes = [...raw.notes];
  const columns = uniqueColumnNames(raw.columns, notes);
  const rows = raw.rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (const [index, column] of columns.entries()) row[column] = values[index] ?? null;
    return row;
  });
  const result: SqlResult = { columns, rows, total: raw.total, blobColumns: raw.blobColumns, notes };
  if (raw.cutAtBytes !== undefined) result.cutAtBytes = raw.cutAtBytes;
  return result;
}

/**
 * A database value as JSON can carry it without loss: binary as base64,
 * integers beyond 2^53 as decimal strings, non-finite numbers as strings,
 * dates as ISO-8601.
 */
export function jsonSafeValue(value: unknown, onBlob: () => void, onBigInteger: () => void): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    if (value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)) return Number(value);
    onBigInteger();
    return value.toString();
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Uint8Array) {
    onBlob();
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return value;
}
