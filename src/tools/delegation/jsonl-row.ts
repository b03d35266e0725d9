import type { FileHandle } from 'node:fs/promises';

const chunkBytes = 64 * 1024;

/** A byte that leaves a line blank (the rows of a JSONL table skip blank lines). */
function isBlankByte(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0b || byte === 0x0c;
}

export type JsonlRowLookup = { found: true; text: string; line: number } | { found: false; rows: number } | { found: 'too-large'; line: number; bytes: number };

/**
 * Finds row `wanted` (from 0, blank lines skipped) of a JSONL file by
 * scanning bytes: rows before it are never turned into strings, and the row
 * itself is kept only up to `maxRowBytes`, so a file of any size, even one
 * huge line, costs a 64 KiB buffer plus at most that row.
 */
export async function readJsonlRow(handle: FileHandle, wanted: number, maxRowBytes: number): Promise<JsonlRowLookup> {
  const buffer = Buffer.alloc(chunkBytes);
  let position = 0;
  let row = -1;
  let line = 1;
  let blank = true;
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let lineBytes = 0;
  const finishLine = (): JsonlRowLookup | undefined => {
    if (!blank) row += 1;
    if (!blank && row === wanted) {
      if (lineBytes > maxRowBytes) return { found: 'too-large', line, bytes: lineBytes };
      const text = Buffer.concat(kept, keptBytes).toString('utf8');
      return { found: true, text: text.endsWith('\r') ? text.slice(0, -1) : text, line };
    }
    return undefined;
  };
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let start = 0;
    while (start < bytesRead) {
      const newline = buffer.indexOf(0x0a, start);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      const collecting = row + 1 === wanted;
      for (let index = start; blank && index < end; index += 1) if (!isBlankByte(buffer[index] as number)) blank = false;
      lineBytes += end - start;
      if (collecting && keptBytes + (end - start) <= maxRowBytes) {
        kept.push(Buffer.from(buffer.subarray(start, end)));
        keptBytes += end - start;
      }
      if (end === bytesRead && (newline === -1 || newline >= bytesRead)) break;
      const result = finishLine();
      if (result !== undefined) return result;
      line += 1;
      blank = true;
      kept = [];
      keptBytes = 0;
      lineBytes = 0;
      start = end + 1;
    }
  }
  const last = lineBytes > 0 ? finishLine() : undefined;
  if (last !== undefined) return last;
  return { found: false, rows: row + 1 };
}
