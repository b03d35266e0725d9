import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import type { OpenedFile } from '../../sandbox/index.js';

const binaryProbeBytes = 8192;

/**
 * True when the first bytes of the file hold a NUL and are not UTF-8 (images,
 * archives, ...). A text result that merely contains a NUL character is still
 * text: it was spilled as .txt and must stay readable.
 */
export async function looksBinary(file: OpenedFile): Promise<boolean> {
  const probe = Buffer.alloc(Math.min(binaryProbeBytes, file.stats.size));
  if (probe.length === 0) return false;
  const { bytesRead } = await file.handle.read(probe, 0, probe.length, 0);
  const head = probe.subarray(0, bytesRead);
  if (!head.includes(0)) return false;
  // The probe may end inside a multi-byte character: accept up to 3 cut bytes.
  for (let cut = 0; cut <= Math.min(3, head.length); cut += 1) {
    if (isUtf8(head.subarray(0, head.length - cut))) return false;
  }
  return true;
}

/**
 * Characters of one line kept in memory; the rest of a longer line is
 * counted, not held, so a 250 MB one-line file costs this much, not 500 MB
 * of string. read_file shows at most reread.maxLineChars of it anyway, and
 * search_file matches within this head (and says so).
 */
export const lineKeepChars = 65_536;

/** How long search_file and search_files run before they stop and say how far they got. */
export const searchTimeLimitMs = 30_000;
/** Characters a search matches between two looks at its cancel and time limit (also every 256 lines). */
export const searchCheckChars = 1 << 20;

const chunkBytes = 64 * 1024;

export interface Line {
  /** 1-based. */
  number: number;
  /** The line's first {@link lineKeepChars} characters at most (no line break). */
  text: string;
  /** The whole line's length in characters (more than text.length when the line was cut). */
  length: number;
}

/**
 * Streams the lines of an opened file by 64 KiB chunks, numbered from 1. Lines
 * end as readline ends them (\n, \r\n or a lone \r); a last line without an
 * ending counts. Memory stays bounded whatever the file: never a whole file or
 * a whole long line in one string.
 */
export async function* readLines(file: OpenedFile, options: { keepChars?: number; chunkBytes?: number } = {}): AsyncGenerator<Line> {
  const keepChars = options.keepChars ?? lineKeepChars;
  const stream = file.handle.createReadStream({ start: 0, autoClose: false, highWaterMark: options.chunkBytes ?? chunkBytes });
  const decoder = new StringDecoder('utf8');
  let number = 0;
  let pieces: string[] = [];
  let kept = 0;
  let length = 0;
  // The previous chunk ended with \r: a \n starting this one is the same line ending.
  let afterReturn = false;
  const add = (piece: string) => {
    length += piece.length;
    if (kept >= keepChars || piece.length === 0) return;
    const part = piece.length <= keepChars - kept ? piece : piece.slice(0, keepChars - kept);
    pieces.push(part);
    kept += part.length;
  };
  const end = (): Line => {
    number += 1;
    const line = { number, text: pieces.join(''), length };
    pieces = [];
    kept = 0;
    length = 0;
    return line;
  };
  const feed = function* (text: string): Generator<Line> {
    let from = afterReturn && text.startsWith('\n') ? 1 : 0;
    if (text.length > 0) afterReturn = false;
    const endings = /\r\n|\n|\r/g;
    endings.lastIndex = from;
    for (let match = endings.exec(text); match !== null; match = endings.exec(text)) {
      add(text.slice(from, match.index));
      yield end();
      from = match.index + match[0].length;
      if (match[0] === '\r' && from === text.length) afterReturn = true;
    }
    add(text.slice(from));
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield* feed(decoder.write(chunk));
    yield* feed(decoder.end());
    if (length > 0) yield end();
  } finally {
    stream.destroy();
  }
}

/** A line cut to `max` characters, marked when cut (`length` is the whole line's, which may be longer than `text`). */
export function capLine(text: string, max: number, length = text.length): string {
  if (length <= max) return text;
  return `${text.slice(0, max)}… [line cut: ${length.toLocaleString('en-US')} characters]`;
}
