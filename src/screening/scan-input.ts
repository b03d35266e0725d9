/** Strings at least this long are scanned as UTF-8 bytes (node-re2 converts a string to UTF-8 on every call; a Buffer it reads as it is). */
export const bufferScanChars = 4096;

/**
 * One text as the screening patterns scan it: a long text as its UTF-8 bytes,
 * encoded once for every pattern and every call (a 10 MB result with a match
 * per line was converted again for each match), with RE2's byte offsets mapped
 * back to the string's. A text that is not well-formed UTF-16 (a lone
 * surrogate) stays a string, so every value read from it is exact.
 */
export class ScanInput {
  private bytes: Buffer | undefined;
  /** True when a byte offset of `input` is the same string offset (a string, or ASCII bytes). */
  private sameOffsets = true;
  private readonly asBytes: boolean;
  private byte = 0;
  private char = 0;

  /** `bufferFrom`: the length from which the text is scanned as bytes (tests compare both ways of scanning). */
  constructor(
    readonly text: string,
    bufferFrom = bufferScanChars,
  ) {
    this.asBytes = text.length >= bufferFrom && text.isWellFormed();
  }

  /**
   * What RE2 reads: the string, or its UTF-8 bytes, encoded on first use (a
   * single test of a clean text is cheaper on the string: node-re2's own
   * conversion reuses its memory, a new 10 MB Buffer does not).
   */
  get input(): string | Buffer {
    if (!this.asBytes) return this.text;
    if (this.bytes === undefined) {
      this.bytes = Buffer.from(this.text, 'utf8');
      this.sameOffsets = this.bytes.length === this.text.length;
    }
    return this.bytes;
  }

  /** The string offset of a byte offset of `input` (asked in ascending order, all of them cost one pass over the text). */
  charOffset(byteOffset: number): number {
    if (this.sameOffsets || this.bytes === undefined) return byteOffset;
    if (byteOffset < this.byte) {
      this.byte = 0;
      this.char = 0;
    }
    this.char += this.bytes.toString('utf8', this.byte, byteOffset).length;
    this.byte = byteOffset;
    return this.char;
  }

  /** A match of a pattern run over `input`, as the same pattern run over the string would have returned it. */
  match(found: RegExpExecArray): RegExpExecArray {
    if (this.bytes === undefined) return found;
    const bytes = found as unknown as (Buffer | undefined)[];
    const whole = bytes[0] as Buffer;
    const start = this.charOffset(found.index);
    const end = this.sameOffsets ? start + whole.length : start + whole.toString('utf8').length;
    const strings = bytes.map((group, index) => (index === 0 ? this.text.slice(start, end) : group?.toString('utf8')));
    return Object.assign(strings, { index: start, input: this.text, groups: undefined }) as RegExpExecArray;
  }

  static of(text: string | ScanInput): ScanInput {
    return typeof text === 'string' ? new ScanInput(text) : text;
  }
}
