import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/** Bytes read so far by a pass over a file, for progress reports. */
export interface ReadCounter {
  bytesRead: number;
}

const chunkBytes = 1 << 20;

/**
 * Decodes a file as UTF-8 text, one chunk (≤ 1 MiB) at a time, from the start;
 * the handle stays open so the file can be read again. A multi-byte character
 * split across chunks is kept whole. Constant memory whatever the file size.
 */
export async function* readTextChunks(handle: FileHandle, counter: ReadCounter): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let position = 0;
  let first = true;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    counter.bytesRead = position;
    let text = decoder.write(buffer.subarray(0, bytesRead));
    if (first) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text.length > 0) yield text;
  }
  const rest = decoder.end();
  if (rest.length > 0) yield rest;
}
