/** Blocks kept for reuse: more than a stream keeps queued before it asks to wait. */
const maxSpareBlocks = 8;

/**
 * Output bytes gathered in blocks: a row is always written whole into one
 * block (a row that does not fit moves, with what it has so far, into the
 * next). Completed blocks wait in `ready` for the caller to write or keep;
 * a block is never written into again once it is there, unless the caller
 * hands it back with {@link ByteSink.recycle}.
 */
export class ByteSink {
  buffer: Buffer;
  at = 0;
  private rowStart = 0;
  readonly ready: Buffer[] = [];
  /** Blocks written out and handed back ({@link recycle}), filled again instead of new memory. */
  private readonly spare: Buffer[] = [];

  constructor(private readonly blockBytes: number) {
    this.buffer = Buffer.allocUnsafeSlow(blockBytes);
  }

  /**
   * Takes back a block from `ready` once its bytes are written and nothing holds it: the
   * next block reuses its memory. Memory a process has not touched yet costs a page fault
   * per 4 KiB on first write (~10 µs each on this VM): ~0.3 s for a 100 MB file written
   * into new blocks.
   */
  recycle(block: Buffer): void {
    if (block.byteOffset !== 0 || block.buffer.byteLength !== this.blockBytes || this.spare.length >= maxSpareBlocks) return;
    this.spare.push(Buffer.from(block.buffer, 0, this.blockBytes));
  }

  /** Never from Node's shared pool (blocks under 4 KiB would be): a recycled block must own its memory. */
  private newBlock(bytes: number): Buffer {
    return (bytes <= this.blockBytes ? this.spare.pop() : undefined) ?? Buffer.allocUnsafeSlow(Math.max(this.blockBytes, bytes));
  }

  /** Where the row being written starts in `buffer`. */
  get currentRowStart(): number {
    return this.rowStart;
  }

  endRow(): void {
    this.rowStart = this.at;
  }

  /** Room for `bytes` more bytes of the current row. */
  room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const partial = this.at - this.rowStart;
    const next = this.newBlock(2 * (partial + bytes));
    this.buffer.copy(next, 0, this.rowStart, this.at);
    if (this.rowStart > 0) this.ready.push(this.buffer.subarray(0, this.rowStart));
    this.buffer = next;
    this.at = partial;
    this.rowStart = 0;
  }

  byte(value: number): void {
    this.room(1);
    this.buffer[this.at++] = value;
  }

  copy(source: Buffer, start: number, end: number): void {
    const length = end - start;
    this.room(length);
    const target = this.buffer;
    let at = this.at;
    if (length < 512) for (let index = start; index < end; index += 1) target[at++] = source[index] as number;
    else at += source.copy(target, at, start, end);
    this.at = at;
  }

  text(value: string): void {
    this.room(value.length * 3);
    this.at += this.buffer.write(value, this.at);
  }

  /** Everything written so far as completed blocks (the current block ends here and a new one starts). */
  flush(): Buffer[] {
    if (this.at > 0) {
      this.ready.push(this.buffer.subarray(0, this.at));
      this.buffer = this.newBlock(this.blockBytes);
      this.at = 0;
      this.rowStart = 0;
    }
    return this.ready.splice(0);
  }
}
