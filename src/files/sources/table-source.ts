import { constants } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../../errors.js';
import { ConversationSandbox, metadataSuffix } from '../../sandbox/index.js';
import { detectTable } from '../../spill/table.js';
import { isJsonObject } from '../../util/is-json-object.js';
import { parseJsonSafely } from '../../util/safe-json.js';
import { csvRows, readCsvHeader } from './csv-rows.js';
import { jsonArrayRows } from './json-array-rows.js';
import { jsonlRows } from './jsonl-rows.js';
import { readTextChunks, type ReadCounter } from './read-chunks.js';
import { parseJsonOrFail } from '../../util/parse-json.js';

/**
 * Where a source file is. Tools always use `sandbox` (resolved by the
 * conversation sandbox, exactly as the model gave it); `local` is for the
 * `spillway export` CLI, whose user owns the filesystem.
 */
export type SourceLocation = { kind: 'sandbox'; root: string; principal: string; conversationId: string; path: string } | { kind: 'local'; path: string };

export type TableFormat = 'jsonl' | 'json' | 'csv';

/** A table file opened for reading; each call of `batches()` is a fresh pass from the start. */
export interface TableSource {
  /** The path as the caller gave it (messages). */
  name: string;
  format: TableFormat;
  bytes: number;
  /** Columns known before reading rows (CSV header, spill metadata), in source order. */
  knownColumns: string[] | undefined;
  /** Row count from the spill metadata, when present. */
  knownRows: number | undefined;
  batches(): AsyncIterable<Record<string, unknown>[]>;
  /** Reads the file's bytes at `position` (the CSV export's JSONL transcoder reads bytes, not rows). */
  readAt?(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
  /** Bytes read by the current pass. */
  readonly counter: ReadCounter;
  close(): Promise<void>;
}

/** A JSON document that is one object (not an array) is parsed whole up to this size. */
const maxWholeJsonBytes = 64 * 1024 * 1024;
const maxMetadataBytes = 1024 * 1024;

/** Opens a table source: JSONL (a spill), a JSON array of objects (or an object with one such member), or CSV with a header. */
export async function openTableSource(location: SourceLocation): Promise<TableSource> {
  const opened = await openLocation(location);
  try {
    return await describeSource(opened);
  } catch (error) {
    await opened.handle.close().catch(() => undefined);
    throw error;
  }
}

interface OpenedSource {
  name: string;
  handle: FileHandle;
  bytes: number;
  readMetadata(): Promise<unknown>;
}

async function openLocation(location: SourceLocation): Promise<OpenedSource> {
  if (location.kind === 'sandbox') {
    const sandbox = new ConversationSandbox(location.root, location.conversationId, location.principal);
    const file = await sandbox.openRead(location.path);
    return {
      name: file.relative,
      handle: file.handle,
      bytes: file.stats.size,
      readMetadata: async () => {
        if (!file.relative.startsWith('results/')) return undefined;
        const { data } = await sandbox.readFile(file.relative + metadataSuffix, { maxBytes: maxMetadataBytes });
        return parseJsonSafely(data.toString('utf8'));
      },
    };
  }
  let handle: FileHandle;
  try {
    handle = await open(location.path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpillwayError('PATH_NOT_FOUND', `Cannot open ${location.path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}.`, {
      path: location.path,
    });
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new SpillwayError('PATH_NOT_FILE', `${location.path} is not a regular file.`, { path: location.path });
  }
  return {
    name: location.path,
    handle,
    bytes: stats.size,
    readMetadata: async () => parseJsonSafely(await readFile(location.path + metadataSuffix, 'utf8')),
  };
}

async function describeSource(opened: OpenedSource): Promise<TableSource> {
  const { name, handle } = opened;
  const counter: ReadCounter = { bytesRead: 0 };
  const chunks = () => {
    counter.bytesRead = 0;
    return readTextChunks(handle, counter);
  };
  const format = await detectFormat(opened);
  const readAt = async (buffer: Buffer, offset: number, length: number, position: number) => {
    const { bytesRead } = await handle.read(buffer, offset, length, position);
    counter.bytesRead = position + bytesRead;
    return bytesRead;
  };
  const base = { name, format, bytes: opened.bytes, counter, readAt, close: () => handle.close() };

  if (format === 'csv') {
    const header = await readCsvHeader(chunks(), name);
    return { ...base, knownColumns: header, knownRows: undefined, batches: () => csvRows(chunks(), name, header) };
  }
  if (format === 'jsonl') {
    const metadata = await opened.readMetadata().catch(() => undefined);
    const facts = trustedMetadata(metadata, name, opened.bytes);
    return { ...base, knownColumns: facts?.columns, knownRows: facts?.rows, batches: () => jsonlRows(chunks(), name) };
  }
  const first = await firstSignificantChar(chunks());
  if (first === '{') {
    if (opened.bytes > maxWholeJsonBytes) {
      throw new SpillwayError(
        'NOT_A_TABLE',
        `${name} is one JSON object of ${opened.bytes} bytes; tables this large must be JSONL (one row object per line) or a JSON array of objects.`,
        { path: name },
      );
    }
    const text = (await handle.readFile({ encoding: 'utf8' })).replace(/^\uFEFF/, '');
    const value = parseJsonOrFail(text, (reason) => `${name} is not valid JSON (${reason}).`, { path: name });
    const table = detectTable(value);
    if (table === undefined) {
      throw new SpillwayError(
        'NOT_A_TABLE',
        `${name} is JSON but not a table: it needs to be an array of row objects, or an object with exactly one such array member. Read it with read_file, or reshape it with run_script.`,
        { path: name },
      );
    }
    const rows = table.rows;
    return { ...base, knownColumns: undefined, knownRows: rows.length, batches: () => oneBatch(rows) };
  }
  return { ...base, knownColumns: undefined, knownRows: undefined, batches: () => jsonArrayRows(chunks(), name) };
}

/** Rows already in memory, handed out in batches of the usual size. */
async function* oneBatch(rows: Record<string, unknown>[]): AsyncGenerator<Record<string, unknown>[]> {
  for (let at = 0; at < rows.length; at += 4096) yield rows.slice(at, at + 4096);
}

/** By extension, then by the first bytes: "{" starts JSONL, "[" a JSON array; .csv is CSV. */
async function detectFormat(opened: OpenedSource): Promise<TableFormat> {
  const extension = path.extname(opened.name).toLowerCase();
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.csv') return 'csv';
  const probe = Buffer.alloc(Math.min(4096, opened.bytes));
  const { bytesRead } = await opened.handle.read(probe, 0, probe.length, 0);
  const head = probe.subarray(0, bytesRead);
  if (head.includes(0)) {
    throw new SpillwayError('NOT_A_TABLE', `${opened.name} is a binary file, not a table. Give it to the user with attach_file.`, { path: opened.name });
  }
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (extension === '.json') {
    // A .json file holding one object per line is JSONL in all but name.
    if (text.startsWith('{') && /^\{[^\n]*\}\s*\n\s*\{/.test(text)) return 'jsonl';
    return 'json';
  }
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) return 'jsonl';
  if (opened.bytes === 0) return 'jsonl';
  throw new SpillwayError(
    'NOT_A_TABLE',
    `${opened.name} is not a table: export_table reads JSONL spills (results/*.jsonl), JSON arrays of objects and CSV files with a header row.`,
    { path: opened.name },
  );
}

async function firstSignificantChar(chunks: AsyncGenerator<string>): Promise<string | undefined> {
  try {
    for await (const chunk of chunks) {
      const match = /\S/.exec(chunk);
      if (match !== null) return match[0];
    }
    return undefined;
  } finally {
    await chunks.return(undefined);
  }
}

/** The spill's metadata, when it is this file's (path and size match) and lists columns. */
function trustedMetadata(metadata: unknown, name: string, bytes: number): { columns: string[]; rows: number | undefined } | undefined {
  if (!isJsonObject(metadata)) return undefined;
  if (typeof metadata.path !== 'string' || path.basename(metadata.path) !== path.basename(name) || metadata.bytes !== bytes) return undefined;
  const columns = metadata.columns;
  if (!Array.isArray(columns) || !columns.every((column): column is string => typeof column === 'string')) return undefined;
  return { columns, rows: typeof metadata.rows === 'number' ? metadata.rows : undefined };
}
