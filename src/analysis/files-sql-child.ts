/**
 * Child process that runs one query_files statement with DuckDB. A child per
 * query: DuckDB's settings are per instance and locked once set, so each
 * conversation's query gets an instance that can read that conversation's
 * files and nothing else, and a query past its deadline is stopped by killing
 * the process (DuckDB's interrupt does not reach every native loop).
 *
 * Protocol (IPC, JSON): the parent sends one `run`; the child answers with one
 * `result` or `error` and exits. It imports DuckDB at start and runs one query of
 * its own (warmUp), so a spare child forked ahead of time is ready, and warm, when a
 * query arrives.
 */
import { closeSync, rmSync, writeSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { DuckDBInstance, DuckDBTypeId, JsonDuckDBValueConverter, StatementType, type DuckDBConnection, type DuckDBResult } from '@duckdb/node-api';
import { SpillwayError, toSpillwayError, type SerializedError } from '../errors.js';
import { columnBytesOf, rowBytes, rowTooLarge } from '../sql/row-bytes.js';
import type { RawSqlResult } from '../sql/sql-source.js';
import { knownRowBytes, measuredColumns } from './cell-bytes.js';
import { pinView, releaseView, type PinnedView } from './pinned-view.js';
import { refuseRevealingCalls } from './revealing-calls.js';
import { warmUpFiles } from './warm-up-files.js';

export interface FilesSqlRequest {
  type: 'run';
  /** The conversation folder: relative paths in the SQL are read from here. */
  cwd: string;
  sql: string;
  /** Absolute paths of the conversation's data files: what DuckDB may open (through a pinned view of them, pinned-view.ts). */
  allowedPaths: string[];
  maxRows: number;
  /** Bytes of rows (as JSON objects) read at most: analysis.maxBytes. */
  maxBytes: number;
  memoryLimitMb: number;
  threads: number;
  /** The sandbox root: never shown in an error message. */
  root: string;
}

/**
 * export_table format parquet: spillway's own SELECT (never the model's SQL)
 * copied to a temporary file in outputs/, the only path besides the source
 * that this instance may touch.
 */
export interface ParquetExportRequest {
  type: 'export';
  cwd: string;
  select: string;
  /** The source file and the temporary output file: DuckDB's allowed_paths. */
  allowedPaths: string[];
  output: string;
  memoryLimitMb: number;
  threads: number;
  root: string;
}

export type FilesSqlResponse =
  { type: 'ready' } | { type: 'result'; result: RawSqlResult } | { type: 'exported'; rows: number } | { type: 'error'; error: SerializedError };

/** Resolves once the message is handed to the IPC channel (a large result must not be cut by the exit that follows). */
function send(message: FilesSqlResponse): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

/** A DuckDB string literal. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * An instance whose configuration is locked before the model's SQL runs:
 * no extension installed or loaded, external access off except the listed
 * files, no spilling to a temp folder, bounded memory and threads.
 */
async function lockedConnection(request: { allowedPaths: string[]; memoryLimitMb: number; threads: number }): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    memory_limit: `${request.memoryLimitMb}MB`,
    threads: String(request.threads),
    temp_directory: '',
  });
  const connection = await instance.connect();
  // allowed_paths is a list, which DuckDB does not take at instance creation: set it, then shut the door.
  await connection.run(`SET allowed_paths = [${request.allowedPaths.map(literal).join(', ')}]`);
  await connection.run('SET allowed_directories = []');
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
  return connection;
}

const readKeywords = new Set(['SELECT', 'WITH', 'FROM', 'VALUES', 'DESCRIBE', 'SUMMARIZE', 'SHOW', 'TABLE']);

/** The statement's first word, past comments and opening parentheses, in upper case. */
export function leadingKeyword(sql: string): string {
  const rest = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*/, '');
  return /^[A-Za-z_]+/.exec(rest)?.[0].toUpperCase() ?? '';
}

/** One statement, and only one that reads (SELECT, WITH, FROM-first, VALUES, DESCRIBE, SUMMARIZE). */
async function prepareReadOnly(connection: DuckDBConnection, sql: string) {
  const extracted = await connection.extractStatements(sql).catch((error: unknown) => {
    throw duckdbError(error, sql);
  });
  if (extracted.count !== 1) {
    throw new SpillwayError('SQL_READ_ONLY', `query_files runs exactly one statement; this text holds ${extracted.count}. Send one SELECT.`, {
      statements: extracted.count,
    });
  }
  // Checked before DuckDB binds the statement, so a COPY is refused as a write, not as a file it may not touch.
  const keyword = leadingKeyword(sql);
  if (!readKeywords.has(keyword)) {
    throw new SpillwayError(
      'SQL_READ_ONLY',
      `query_files only reads: a statement starting with ${keyword === '' ? 'nothing recognisable' : keyword} is refused (no COPY, ATTACH, INSTALL, LOAD, SET, CREATE, EXPORT or PRAGMA). Send one SELECT over the conversation's files.`,
      { keyword },
    );
  }
  refuseRevealingCalls(sql);
  const prepared = await extracted.prepare(0).catch((error: unknown) => {
    throw duckdbError(error, sql);
  });
  if (prepared.statementType !== StatementType.SELECT) {
    const kind = StatementType[prepared.statementType] ?? String(prepared.statementType);
    throw new SpillwayError(
      'SQL_READ_ONLY',
      `query_files only reads: a ${kind} statement is refused (no COPY, ATTACH, INSTALL, LOAD, SET, CREATE, EXPORT or PRAGMA that changes anything). Send one SELECT over the conversation's files.`,
      { statementType: kind },
    );
  }
  return prepared;
}

const integerTypes = new Set<number>([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT]);

/** What collect stops at: the row cap (counting on) and the byte cap (stopping there). */
interface CollectCaps {
  maxRows: number;
  maxBytes: number;
}

/** BIGINT and DECIMAL come as text; numbers are what a model and a chart expect. */
function numbersOf(row: unknown[], typeIds: readonly number[], columns: readonly string[], unsafeIntegers: Set<string>, decimals: Set<string>): void {
  for (let index = 0; index < row.length; index += 1) {
    const value = row[index];
    if (typeof value !== 'string') continue;
    const typeId = typeIds[index] as number;
    if (integerTypes.has(typeId)) {
      const number = Number(value);
      if (Number.isSafeInteger(number)) row[index] = number;
      else unsafeIntegers.add(columns[index] as string);
    } else if (typeId === DuckDBTypeId.DECIMAL) {
      row[index] = Number(value);
      decimals.add(columns[index] as string);
    }
  }
}

/**
 * Reads the first maxRows rows as JSON values, up to maxBytes of them (as
 * JSON object rows, measured as query_sql measures them): past the row cap
 * the rest is counted without converting it; at the byte cap reading stops
 * (the total is then unknown), so no result larger than the cap is ever
 * built here or sent to the host.
 */
async function collect(result: DuckDBResult, caps: CollectCaps): Promise<RawSqlResult> {
  // Repeated names are made unique by the parent (toObjectRows), with a note, as query_sql does.
  const columns = result.columnNames();
  const typeIds = columns.map((_, index) => result.columnTypeId(index));
  const measured = measuredColumns(typeIds);
  const columnBytes = columnBytesOf(columns);
  const notes: string[] = [];
  const unsafeIntegers = new Set<string>();
  const decimals = new Set<string>();
  const rows: unknown[][] = [];
  let total = 0;
  let bytes = 2;
  let cutAtBytes = false;
  while (!cutAtBytes) {
    const chunk = await result.fetchChunk();
    if (chunk === null || chunk.rowCount === 0) break;
    for (let index = 0; index < chunk.rowCount && rows.length < caps.maxRows; index += 1) {
      const rowNumber = total + index + 1;
      // What the vectors tell before converting: a row that cannot fit is refused, or ends the result, uncopied.
      const known = knownRowBytes(chunk, index, measured);
      if (known > caps.maxBytes) throw rowTooLarge(rowNumber, known, caps.maxBytes, 'analysis.maxBytes');
      if (rows.length > 0 && bytes + known > caps.maxBytes) {
        cutAtBytes = true;
        break;
      }
      const row = chunk.convertRowValues(index, JsonDuckDBValueConverter);
      numbersOf(row, typeIds, columns, unsafeIntegers, decimals);
      const size = rowBytes(row, columnBytes);
      if (size > caps.maxBytes) throw rowTooLarge(rowNumber, size, caps.maxBytes, 'analysis.maxBytes');
      if (bytes + size > caps.maxBytes) {
        cutAtBytes = true;
        break;
      }
      bytes += size;
      rows.push(row);
    }
    total += chunk.rowCount;
  }
  if (unsafeIntegers.size > 0) notes.push(`Integers beyond ±2^53 in ${[...unsafeIntegers].join(', ')} are given as strings so no digit is lost.`);
  if (decimals.size > 0) notes.push(`DECIMAL values in ${[...decimals].join(', ')} are given as JSON numbers (double precision).`);
  if (cutAtBytes) return { columns, rows, total: null, blobColumns: [], notes, cutAtBytes: caps.maxBytes };
  return { columns, rows, total, blobColumns: [], notes };
}

/**
 * An error message without the host's absolute paths: the conversation folder
 * becomes the sandbox-relative path the model wrote, the sandbox root, the
 * home and temp folders a placeholder.
 */
export function withoutHostPaths(message: string, folders: { cwd: string; root: string }): string {
  let text = message.split(`${folders.cwd}/`).join('').split(folders.cwd).join('.');
  const others: [string, string][] = [
    [folders.root, '<sandbox>'],
    [homedir(), '~'],
    [tmpdir(), '<tmp>'],
  ];
  for (const [folder, placeholder] of others.sort((a, b) => b[0].length - a[0].length)) {
    if (folder.length > 1) text = text.split(folder).join(placeholder);
  }
  return text;
}

/** A DuckDB failure as a coded error: refused file access, memory limit, or the database's own message. */
export function duckdbError(error: unknown, sql: string): SpillwayError {
  if (SpillwayError.is(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  // A quoted name without a data extension is looked up as a table: for a path, that is a refused file too.
  const refused = /Cannot access (?:file|directory) "([^"]*)"/.exec(message) ?? /Table with name (\S*[/\\:]\S*) does not exist/.exec(message);
  if (refused !== null || /disabled (?:by|through) configuration/.test(message)) {
    const file = refused?.[1] ?? '';
    return new SpillwayError(
      'SQL_FILE_REFUSED',
      `query_files can read only this conversation's own data files (JSONL, JSON, CSV, Parquet), each named by its sandbox path like 'results/0003-list_tickets.jsonl'; ${file === '' ? 'the statement asked for something else' : `"${file}" is not one of them`} (no absolute paths, other conversations, symlinks, globs, extensions or remote URLs). list_files shows the files there are.`,
      { file, message: message.slice(0, 500) },
    );
  }
  if (/Out of Memory Error/i.test(message)) {
    return new SpillwayError(
      'SQL_LIMIT',
      `The query needed more memory than analysis.memoryBytes allows: ${message.split('\n')[0]}. Aggregate or filter earlier, or select fewer columns.`,
      {
        limit: 'analysis.memoryBytes',
        message: message.slice(0, 500),
      },
    );
  }
  return new SpillwayError('SQL_ERROR', `DuckDB error: ${message.slice(0, 2000)}\nFix the statement and run query_files again.`, {
    database: 'DuckDB',
    message: message.slice(0, 2000),
    sql: sql.slice(0, 200),
  });
}

async function run(request: FilesSqlRequest): Promise<void> {
  let view: PinnedView | undefined;
  try {
    view = pinView(
      request.cwd,
      request.allowedPaths.map((file) => ({ path: file })),
    );
    process.chdir(view.folder);
    const connection = await lockedConnection({ ...request, allowedPaths: view.paths });
    const prepared = await prepareReadOnly(connection, request.sql);
    const result = await prepared.stream().catch((error: unknown) => {
      throw duckdbError(error, request.sql);
    });
    const collected = await collect(result, request).catch((error: unknown) => {
      throw duckdbError(error, request.sql);
    });
    await send({ type: 'result', result: collected });
  } catch (error) {
    await send({ type: 'error', error: hidePaths(toSpillwayError(error, 'SQL_ERROR').toJSON(), request, view) });
  } finally {
    if (view !== undefined) releaseView(view);
  }
}

/** The error's message and its details' texts without host paths (the view's folder stands for the conversation's). */
function hidePaths(error: SerializedError, folders: { cwd: string; root: string }, view?: PinnedView): SerializedError {
  const hide = (text: string) => withoutHostPaths(view === undefined ? text : withoutHostPaths(text, { cwd: view.folder, root: folders.root }), folders);
  const details =
    error.details === undefined
      ? undefined
      : Object.fromEntries(Object.entries(error.details).map(([key, value]) => [key, typeof value === 'string' ? hide(value) : value]));
  return { ...error, message: hide(error.message), ...(details === undefined ? {} : { details }) };
}

async function exportParquet(request: ParquetExportRequest): Promise<void> {
  let view: PinnedView | undefined;
  try {
    view = pinView(
      request.cwd,
      request.allowedPaths.map((file) => ({ path: file, write: file === request.output })),
    );
    const output = view.byOriginal.get(request.output);
    if (output === undefined) {
      throw new SpillwayError(
        'PATH_ESCAPES',
        "The export's temporary file in outputs/ was replaced while the export ran, so nothing was written. Run the export again.",
      );
    }
    process.chdir(view.folder);
    const connection = await lockedConnection({ ...request, allowedPaths: view.paths });
    // USE_TMP_FILE false: DuckDB would otherwise write beside the output under a name it may not touch.
    const reader = await connection
      .runAndReadAll(`COPY (${request.select}) TO '${output.replace(/'/g, "''")}' (FORMAT parquet, USE_TMP_FILE false)`)
      .catch((error: unknown) => {
        throw duckdbError(error, request.select);
      });
    const rows = Number(reader.getRowsJson()[0]?.[0] ?? 0);
    await send({ type: 'exported', rows });
  } catch (error) {
    await send({ type: 'error', error: hidePaths(toSpillwayError(error, 'SQL_ERROR').toJSON(), request, view) });
  } finally {
    if (view !== undefined) releaseView(view);
  }
}

/**
 * Blank lines after the warm-up's rows (argv[2], from the parent: the size of the largest file
 * the last query could read, capped at maxWarmUpBytes): a JSON file this long makes DuckDB's reader allocate, and
 * the kernel page in, read buffers of the size the next query's files get, and freed they stay
 * in the process's malloc arena for that query. Measured over a 1M-row spill: with 64 rows alone
 * a first query spent ~0.1 s more, in ~19,000 page faults (perf: the JSON read buffers); 34 MiB
 * of padding costs the spare ~0.5 s of CPU before it is ready, so small files get little.
 */
const warmUpPaddingBytes = Math.max(0, Math.floor(Number(process.argv[2]) || 0));

/** warmUpPaddingBytes of blank lines from `position` on, a MiB at a time (no buffer of the whole size). */
function appendBlankLines(fd: number, position: number): void {
  const block = Buffer.alloc(Math.min(warmUpPaddingBytes, 1024 * 1024), 0x0a);
  for (let written = 0; written < warmUpPaddingBytes;) {
    written += writeSync(fd, block, 0, Math.min(block.length, warmUpPaddingBytes - written), position + written);
  }
}

/**
 * Runs the path of a query once, on two files of its own, before the child says it
 * is ready: a first DuckDB instance in a process pays for what later ones find done (the
 * library's code paged in, its first allocations and read buffers, the JSON reader, hash
 * join and aggregate, the value converter): 0.1–0.3 s here, which every query_files call
 * would otherwise pay, since each runs in a new child. The instance is locked to those two
 * files like any other. Never fails the child: a warm-up that cannot run is skipped.
 */
async function warmUp(): Promise<void> {
  let folder: string | undefined;
  const fds: number[] = [];
  try {
    const rows = Array.from({ length: 64 }, (_, index) => `{"id":${index},"key":"k${index % 4}","amount":${index / 4},"at":"2026-01-01T00:00:00Z"}\n`).join('');
    const names = Array.from({ length: 4 }, (_, index) => `{"key":"k${index}","name":"n${index}"}\n`).join('');
    const files = warmUpFiles([rows, names], fds);
    folder = files.folder;
    appendBlankLines(fds[0]!, Buffer.byteLength(rows));
    const [factsPath, namesPath] = files.paths.map(literal) as [string, string];
    const connection = await lockedConnection({ allowedPaths: files.paths, memoryLimitMb: 64, threads: 1 });
    const prepared = await prepareReadOnly(
      connection,
      `SELECT n.name, count(*) AS c, sum(f.amount) AS total, max(f.at) AS last FROM read_json(${factsPath}) f JOIN read_json(${namesPath}) n ON f.key = n.key GROUP BY 1 ORDER BY 1`,
    );
    await collect(await prepared.stream(), { maxRows: 100, maxBytes: 1 << 20 });
    connection.closeSync();
  } catch {
    // A cold first query is slower, not wrong.
  } finally {
    for (const fd of fds) closeSync(fd);
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  }
}

process.on('message', (message: FilesSqlRequest | ParquetExportRequest) => {
  const work = message?.type === 'run' ? run(message) : message?.type === 'export' ? exportParquet(message) : undefined;
  void work?.finally(() => process.disconnect?.());
});
void warmUp().then(() => send({ type: 'ready' }));
