/**
 * Child process that runs SQLite queries for query_sql. better-sqlite3 is
 * synchronous and has no interrupt: a long statement blocks its thread in
 * native code, where not even Worker.terminate() reaches it. A child process
 * can always be stopped (SIGKILL), so the timeout is real.
 *
 * Protocol (IPC, JSON serialization): the parent sends one `open`, then
 * `query` messages one at a time; the child answers each with one message.
 */
import Database from 'better-sqlite3';
import { SpillwayError, toSpillwayError, type SerializedError } from '../errors.js';
import { databaseError } from './sql-error.js';
import type { RawSqlResult } from './sql-source.js';
import { jsonSafeValue } from './sql-source.js';
import { columnBytesOf, rowBytes, rowTooLarge, sqliteHeapLimit, valueTooLarge } from './row-bytes.js';
import { scanSql } from './sql-tokens.js';
import { checkReadOnlyStatement } from './statement-check.js';

export type ChildRequest =
  | { type: 'open'; file: string }
  | { type: 'query'; id: number; sql: string; maxRows: number; maxBytes?: number; statementChecks: boolean }
  /** After a result with countPending: count the whole match, in the same read transaction. */
  | { type: 'count'; id: number };

export type ChildResponse =
  | { type: 'opened' }
  | { type: 'open-failed'; error: SerializedError }
  | { type: 'result'; id: number; result: RawSqlResult; countPending: boolean }
  | { type: 'counted'; id: number; total: number }
  | { type: 'error'; id: number; error: SerializedError };

/** The count still owed for the last result (its read transaction is still open). */
let pendingCount: string | undefined;

let db: Database.Database | undefined;

function send(message: ChildResponse): void {
  process.send?.(message);
}

function open(file: string): void {
  try {
    // readonly: SQLite itself refuses every write on this connection.
    db = new Database(file, { readonly: true, fileMustExist: true });
    // Reading the schema makes a corrupt or non-database file fail here, not on the first query.
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    db.pragma('query_only = ON');
    send({ type: 'opened' });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason =
      code === 'SQLITE_CANTOPEN'
        ? 'the file does not exist or cannot be opened'
        : code === 'SQLITE_NOTADB'
          ? 'the file is not a SQLite database'
          : code === 'SQLITE_CORRUPT'
            ? 'the database file is corrupt'
            : (error as Error).message;
    send({
      type: 'open-failed',
      error: new SpillwayError('SQL_SOURCE_UNAVAILABLE', `The SQLite database ${file} cannot be used: ${reason}. Check sql.source.file in the configuration.`, {
        file,
        databaseCode: code,
      }).toJSON(),
    });
  }
}

/**
 * better-sqlite3 does not expose sqlite3_error_offset, and `near "X"` names a
 * token that may occur several times. The culprit is the first occurrence
 * whose prefix of the statement already fails with the same message (a
 * prefix ending at an earlier, valid occurrence is merely incomplete).
 */
function locateSyntaxError(database: Database.Database, sql: string, message: string): number | undefined {
  const near = /^near "((?:[^"]|"")*)": syntax error$/.exec(message)?.[1]?.replace(/""/g, '"');
  if (near === undefined) return undefined;
  const candidates = scanSql(sql, 'sqlite').tokens.filter((token) => sql.slice(token.offset, token.offset + near.length).toUpperCase() === near.toUpperCase());
  for (const token of candidates.slice(0, 50)) {
    try {
      database.prepare(sql.slice(0, token.offset + near.length));
    } catch (error) {
      if ((error as Error).message === message) return token.offset;
    }
  }
  return undefined;
}

function query(request: Extract<ChildRequest, { type: 'query' }>): { result: RawSqlResult; countPending: boolean } {
  if (db === undefined) throw new SpillwayError('SQL_SOURCE_UNAVAILABLE', 'The database is not open.');
  if (pendingCount !== undefined) {
    // The parent did not ask for the count it was offered: close that read transaction.
    pendingCount = undefined;
    db.exec('COMMIT');
  }
  const checked = request.statementChecks ? checkReadOnlyStatement(request.sql, 'sqlite') : { body: request.sql, wrappable: false };
  let statement: Database.Statement;
  try {
    statement = db.prepare(checked.body);
  } catch (error) {
    const message = (error as Error).message;
    throw databaseError({
      database: 'SQLite',
      sql: request.sql,
      message,
      code: (error as { code?: string }).code,
      offset: locateSyntaxError(db, checked.body, message),
    });
  }
  // The database's own verdict, independent of any text check.
  if (!statement.readonly) {
    throw new SpillwayError('SQL_READ_ONLY', 'query_sql only reads: SQLite reports that this statement would change the database. Send a SELECT statement.', {
      source: 'sqlite3_stmt_readonly',
    });
  }
  if (!statement.reader) {
    throw new SpillwayError(
      'SQL_READ_ONLY',
      'query_sql only reads: this statement returns no rows (it changes the connection or runs a command). Send a SELECT statement.',
      {
        source: 'sqlite3_column_count',
      },
    );
  }
  statement.raw(true).safeIntegers(true);
  const columns = statement.columns().map((column) => column.name);
  const maxBytes = request.maxBytes ?? Number.POSITIVE_INFINITY;
  // SQLite itself may not allocate far past the byte cap: a zeroblob(1e9) fails here, in this process, not in the host.
  if (Number.isFinite(maxBytes)) db.pragma(`hard_heap_limit = ${sqliteHeapLimit(maxBytes)}`);
  db.exec('BEGIN');
  let countPending = false;
  const iterator = statement.iterate() as IterableIterator<unknown[]>;
  try {
    const page = readPage(iterator, request.maxRows, maxBytes, columnBytesOf(columns));
    let total: number | null = page.rows.length;
    if (page.limited && !checked.wrappable) {
      // PRAGMA/EXPLAIN cannot sit in a subquery: count the rest as it comes.
      let counted = page.rows.length + 1;
      while (!iterator.next().done) counted += 1;
      total = counted;
    } else if (page.limited) {
      // The rows go back first; the count follows on request, in this same read
      // transaction, so a count that outlasts the timeout costs the total, not the rows.
      pendingCount = `SELECT count(*) FROM (${checked.body}\n)`;
      countPending = true;
      total = null;
    }
    const notes = page.bigIntegers ? ['Some integers are larger than JSON numbers hold exactly; they are given as decimal strings.'] : [];
    const blobColumns = [...page.blobColumns].map((index) => columns[index] as string);
    const result: RawSqlResult = { columns, rows: page.rows, total, blobColumns, notes };
    if (page.cutAtBytes) result.cutAtBytes = maxBytes;
    return { result, countPending };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOMEM' || code === 'SQLITE_TOOBIG') throw valueTooLarge(maxBytes);
    throw SpillwayError.is(error)
      ? error
      : databaseError({ database: 'SQLite', sql: request.sql, message: (error as Error).message, code: (error as { code?: string }).code });
  } finally {
    iterator.return?.();
    if (!countPending) db.exec('COMMIT');
  }
}

interface Page {
  rows: unknown[][];
  limited: boolean;
  /** The byte cap (sql.maxBytes) stopped the page before the row cap did. */
  cutAtBytes: boolean;
  blobColumns: Set<number>;
  bigIntegers: boolean;
}

/** Up to maxRows rows and maxBytes bytes as JSON-safe arrays, noting binary columns and oversized integers. */
function readPage(iterator: IterableIterator<unknown[]>, maxRows: number, maxBytes: number, columnBytes: number): Page {
  const rows: unknown[][] = [];
  const blobColumns = new Set<number>();
  let bigIntegers = false;
  let bytes = 2;
  for (let step = iterator.next(); !step.done; step = iterator.next()) {
    if (rows.length === maxRows) return { rows, limited: true, cutAtBytes: false, blobColumns, bigIntegers };
    const row = step.value.map((value, index) =>
      jsonSafeValue(
        value,
        () => blobColumns.add(index),
        () => (bigIntegers = true),
      ),
    );
    const size = rowBytes(row, columnBytes);
    if (size > maxBytes) throw rowTooLarge(rows.length + 1, size, maxBytes);
    if (bytes + size > maxBytes) return { rows, limited: true, cutAtBytes: true, blobColumns, bigIntegers };
    bytes += size;
    rows.push(row);
  }
  return { rows, limited: false, cutAtBytes: false, blobColumns, bigIntegers };
}

function count(): number {
  if (db === undefined || pendingCount === undefined) throw new SpillwayError('INTERNAL', 'No count is pending.');
  const sql = pendingCount;
  pendingCount = undefined;
  try {
    return Number(db.prepare(sql).pluck().get());
  } finally {
    db.exec('COMMIT');
  }
}

process.on('message', (message: ChildRequest) => {
  if (message.type === 'open') {
    open(message.file);
    return;
  }
  try {
    if (message.type === 'count') send({ type: 'counted', id: message.id, total: count() });
    else send({ type: 'result', id: message.id, ...query(message) });
  } catch (error) {
    send({ type: 'error', id: message.id, error: toSpillwayError(error, 'SQL_ERROR').toJSON() });
  }
});

process.on('disconnect', () => {
  db?.close();
  process.exit(0);
});
