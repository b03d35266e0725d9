import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { SpillwayError } from '../errors.js';
import type { ConversationSandbox, OpenedFile } from '../sandbox/index.js';
import { metadataSuffix } from '../sandbox/layout.js';

const chunkBytes = 1 << 20;
const checkpointEvery = 10_000;

/** Where row N of a JSONL file starts, remembered within one run so paging forward is linear, not quadratic. */
interface Checkpoint {
  row: number;
  byte: number;
  /** Lines (blank ones included) before `byte`. */
  line: number;
}

/** Per-run memory of row positions, keyed by file identity (path, inode, size, mtime). */
export class RowCheckpoints {
  private readonly files = new Map<string, Checkpoint[]>();

  forFile(file: OpenedFile): Checkpoint[] {
    const key = `${file.relative}\0${file.stats.ino}\0${file.stats.size}\0${file.stats.mtimeMs}`;
    let list = this.files.get(key);
    if (list === undefined) {
      list = [{ row: 0, byte: 0, line: 0 }];
      this.files.set(key, list);
    }
    return list;
  }
}

export type TableFormat = 'jsonl' | 'json';

/** JSONL or a JSON document: by extension, then the spill's metadata, then the first byte. */
export async function tableFormat(file: OpenedFile, sandbox: ConversationSandbox): Promise<TableFormat> {
  const extension = path.extname(file.relative).toLowerCase();
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.json') return 'json';
  // The sidecar is read through the sandbox too: a planted link must not be followed out.
  const meta = await sandbox.readFile(`${file.relative}${metadataSuffix}`, { maxBytes: 1024 * 1024 }).then(
    (found) => (JSON.parse(found.data.toString('utf8')) as { format?: unknown }).format,
    () => undefined,
  );
  if (meta === 'jsonl' || meta === 'json') return meta;
  if (meta === 'text' || meta === 'binary') {
    throw new SpillwayError('NOT_A_TABLE', `${file.relative} is ${meta}, not a table; use readText for it.`, { path: file.relative, format: meta });
  }
  const head = Buffer.alloc(64);
  const { bytesRead } = await file.handle.read(head, 0, head.length, 0);
  const first = head.subarray(0, bytesRead).toString('utf8').trimStart()[0];
  return first === '[' ? 'json' : 'jsonl';
}

export interface RowRange {
  /** First byte of the first selected row's line, and the end of the last one (exclusive). */
  start: number;
  end: number;
  /** 1-based line number of the line at `start`. */
  firstLine: number;
}

/**
 * Finds the bytes holding rows [offset, offset + limit) of a JSONL file, where
 * a row is a non-blank line. Scans from the nearest remembered checkpoint and
 * records new ones, so reading a big file page by page costs one pass in all.
 */
export async function findRowRange(file: OpenedFile, checkpoints: Checkpoint[], offset: number, limit: number | undefined): Promise<RowRange> {
  const size = file.stats.size;
  if (offset === 0 && limit === undefined) return { start: 0, end: size, firstLine: 1 };
  let from = checkpoints[0] as Checkpoint;
  for (const checkpoint of checkpoints) if (checkpoint.row <= offset && checkpoint.row >= from.row) from = checkpoint;

  let row = from.row;
  let line = from.line;
  let start = -1;
  let end = -1;
  let firstLine = line + 1;
  const stopAfter = limit === undefined ? Number.POSITIVE_INFINITY : offset + limit;
  await scanLines(file.handle, from.byte, size, (lineStart, lineEnd, blank) => {
    line += 1;
    if (blank) return true;
    if (row >= offset) {
      if (start === -1) {
        start = lineStart;
        firstLine = line;
      }
      end = lineEnd;
    }
    row += 1;
    if (row % checkpointEvery === 0 || row === stopAfter) remember(checkpoints, { row, byte: Math.min(lineEnd + 1, size), line });
    return row < stopAfter;
  });
  if (start === -1) return { start: size, end: size, firstLine };
  return { start, end, firstLine };
}

function remember(checkpoints: Checkpoint[], checkpoint: Checkpoint): void {
  if (!checkpoints.some((known) => known.row === checkpoint.row)) checkpoints.push(checkpoint);
}

/** Calls `visit(start, end, blank)` for each line from byte `from`; stops when it returns false. */
async function scanLines(handle: FileHandle, from: number, size: number, visit: (start: number, end: number, blank: boolean) => boolean): Promise<void> {
  const chunk = Buffer.allocUnsafe(chunkBytes);
  let position = from;
  let lineStart = from;
  let blank = true;
  while (position < size) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - position), position);
    if (bytesRead === 0) break;
    const view = chunk.subarray(0, bytesRead);
    let index = 0;
    while (index < bytesRead) {
      const newline = view.indexOf(10, index);
      const stop = newline === -1 ? bytesRead : newline;
      if (blank) blank = isBlank(view, index, stop);
      if (newline === -1) break;
      if (!visit(lineStart, position + newline, blank)) return;
      lineStart = position + newline + 1;
      blank = true;
      index = newline + 1;
    }
    position += bytesRead;
  }
  if (lineStart < position) visit(lineStart, position, blank);
}

function isBlank(bytes: Buffer, from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) {
    const byte = bytes[index];
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}

/** Reads bytes [start, end) of an open file. */
export async function readRange(handle: FileHandle, start: number, end: number): Promise<Uint8Array> {
  const data = new Uint8Array(Math.max(0, end - start));
  let done = 0;
  while (done < data.length) {
    const { bytesRead } = await handle.read(data, done, data.length - done, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === data.length ? data : data.subarray(0, done);
}
