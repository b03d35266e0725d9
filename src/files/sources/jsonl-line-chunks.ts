import { isUtf8 } from 'node:buffer';
import { SpillwayError } from '../../errors.js';
import { formatCount } from '../../util/format.js';
import { maxJsonlLineChars } from './jsonl-rows.js';

/** Whole lines of a file as bytes: `buffer[start, end)` ends after a LF, or at the end of the file (`last`). */
export interface LineChunk {
  buffer: Buffer;
  start: number;
  end: number;
  /** The region is valid UTF-8 (then every line in it is). */
  utf8: boolean;
  last: boolean;
}

const chunkBytes = 1 << 20;

/**
 * Reads a JSONL file as bytes in the chunks {@link jsonlRows} decodes (1 MiB
 * at offsets 0, 1 MiB, 2 MiB, ...), each handed out as the whole lines it
 * completes, so the same lines are read per chunk as by the text reader; a
 * leading byte-order mark is skipped, a line longer than jsonlRows allows is
 * refused with the same error. The buffer is reused: a chunk is valid until
 * the next one is asked for.
 */
export async function* jsonlLineChunks(
  readAt: (buffer: Buffer, offset: number, length: number, position: number) => Promise<number>,
  name: string,
  /** Lines the caller has read so far (for the too-long line's number). */
  counted: { lines: number },
  /** Only the bytes from..to (a segment that starts after a LF and ends after one, or at the end). */
  range: { from: number; to: number } = { from: 0, to: Infinity },
): AsyncGenerator<LineChunk> {
  let buffer = Buffer.allocUnsafe(2 * chunkBytes);
  let carry = 0;
  let position = range.from;
  let start = 0;
  for (;;) {
    if (carry + chunkBytes > buffer.length) {
      const larger = Buffer.allocUnsafe(2 * (carry + chunkBytes));
      buffer.copy(larger, 0, 0, carry);
      buffer = larger;
    }
    const bytesRead = await readAt(buffer, carry, Math.min(chunkBytes, range.to - position), position);
    if (bytesRead === 0) break;
    if (position === 0 && bytesRead >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) start = 3;
    position += bytesRead;
    const filled = carry + bytesRead;
    const lastNewline = buffer.lastIndexOf(0x0a, filled - 1);
    const end = lastNewline < start ? start : lastNewline + 1;
    if (end > start) {
      yield { buffer, start, end, utf8: isUtf8(buffer.subarray(start, end)), last: false };
    }
    carry = filled - end;
    buffer.copy(buffer, 0, end, filled);
    start = 0;
    if (carry > maxJsonlLineChars && buffer.toString('utf8', 0, carry).length > maxJsonlLineChars) {
      throw new SpillwayError(
        'RESULT_TOO_LARGE',
        `Line ${formatCount(counted.lines + 1)} of ${name} is longer than ${formatCount(maxJsonlLineChars)} characters; a table row that large is refused.`,
        { path: name, line: counted.lines + 1 },
      );
    }
  }
  if (carry > start) yield { buffer, start, end: carry, utf8: isUtf8(buffer.subarray(start, carry)), last: true };
}
