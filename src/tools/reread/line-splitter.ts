import { StringDecoder } from 'node:string_decoder';
import type { FileHandle } from 'node:fs/promises';

/** One line of a file, or one piece of a line longer than the piece cap. */
export interface LinePiece {
  /** 1-based line number. */
  line: number;
  text: string;
  /** 0 for the first (or only) piece of a line. */
  piece: number;
  /** true when the line was longer than the cap and is delivered in pieces. */
  cut: boolean;
}

/**
 * Splits text that arrives in chunks into lines, never holding more than one
 * piece of a line: a line over `maxPieceChars` is delivered in pieces that
 * overlap by `overlap` characters, so a match of up to `overlap + 1`
 * characters that straddles a cut is still whole in one of them.
 */
export class LineSplitter {
  private pending = '';
  private line = 1;
  private piece = 0;

  constructor(
    private readonly maxPieceChars: number,
    private readonly overlap = 0,
  ) {
    if (overlap >= maxPieceChars) throw new RangeError('overlap must be smaller than maxPieceChars');
  }

  /** The lines (and pieces) completed by this chunk. */
  push(chunk: string): LinePiece[] {
    const out: LinePiece[] = [];
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', start)) {
      this.pending += chunk.slice(start, newline);
      this.emitLong(out);
      this.finish(out, this.pending.endsWith('\r') ? this.pending.slice(0, -1) : this.pending);
      start = newline + 1;
    }
    this.pending += chunk.slice(start);
    this.emitLong(out);
    return out;
  }

  /** The last line, when the text does not end with a line break. */
  end(): LinePiece[] {
    const out: LinePiece[] = [];
    if (this.pending.length > 0 || this.piece > 0) this.finish(out, this.pending);
    return out;
  }

  /** Emits full pieces of a line that is still growing, keeping the overlap. */
  private emitLong(out: LinePiece[]): void {
    while (this.pending.length > this.maxPieceChars) {
      let cut = this.maxPieceChars;
      // Never split a surrogate pair.
      const code = this.pending.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
      out.push({ line: this.line, text: this.pending.slice(0, cut), piece: this.piece, cut: true });
      this.piece += 1;
      this.pending = this.pending.slice(Math.max(1, cut - this.overlap));
    }
  }

  private finish(out: LinePiece[], text: string): void {
    out.push({ line: this.line, text, piece: this.piece, cut: this.piece > 0 });
    this.line += 1;
    this.piece = 0;
    this.pending = '';
  }
}

/** Reads an opened file in chunks (never the whole file into one string) and yields its lines or pieces; stops after `maxBytes`. */
export async function* readLinePieces(
  handle: FileHandle,
  options: { chunkBytes: number; maxPieceChars: number; overlap: number; maxBytes: number; onBytes?: (bytes: number) => void },
): AsyncGenerator<LinePiece> {
  const splitter = new LineSplitter(options.maxPieceChars, options.overlap);
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.alloc(options.chunkBytes);
  let position = 0;
  while (position < options.maxBytes) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, options.maxBytes - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    options.onBytes?.(bytesRead);
    yield* splitter.push(decoder.write(buffer.subarray(0, bytesRead)));
  }
  yield* splitter.push(decoder.end());
  yield* splitter.end();
}
