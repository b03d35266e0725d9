/**
 * Output bytes gathered in blocks: a row is always written whole into one
 * block (a row that does not fit moves, with what it has so far, into the
 * next). Completed blocks wait in `ready` for the caller to write or keep;
 * a block is never written into again once it is there.
 */
export class ByteSink {
  buffer: Buffer;
  at = 0;
  private rowStart = 0;
  readonly ready: Buffer[] = [];

  constructor(private readonly blockBytes: number) {
    this.buffer = Buffer.allocUnsafe(blockBytes);
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
    const next = Buffer.allocUnsafe(Math.max(this.blockBytes, 2 * (partial + bytes)));
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
      this.buffer = Buffer.allocUnsafe(this.blockBytes);
      this.at = 0;
      this.rowStart = 0;
    }
    return this.ready.splice(0);
  }
}
