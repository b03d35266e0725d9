import type { Writable } from 'node:stream';

const bufferBytes = 1 << 20;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit (a pair takes 4 for 2 units). */
const maxBytesPerUnit = 3;

/**
 * Encodes strings straight into two reused 1 MiB buffers and writes them to a
 * stream, one buffer in flight while the other fills. Large spills then make
 * no garbage proportional to their size (building 1 MiB strings and Buffers
 * per chunk held about two extra copies of the result until a major GC), and
 * the byte count comes from the encoder, with no second pass.
 */
export class ChunkWriter {
  /** UTF-8 bytes written so far. */
  bytes = 0;
  /** True once a string held a lone surrogate (written as U+FFFD). */
  replacedInvalidUnicode = false;
  private readonly buffers = [Buffer.allocUnsafe(bufferBytes), Buffer.allocUnsafe(bufferBytes)];
  private current = 0;
  private used = 0;
  private inflight: Promise<void> = Promise.resolve();

  constructor(private readonly stream: Writable) {}

  /**
   * Appends a string (and a newline with `newline`). Returns a promise only
   * when it had to wait for the disk, so a loop over a million rows does not
   * pay for a million awaits: `const wait = writer.writeString(line); if (wait) await wait;`
   */
  writeString(text: string, newline = false): Promise<void> | undefined {
    if (!text.isWellFormed()) this.replacedInvalidUnicode = true;
    const needed = text.length * maxBytesPerUnit + (newline ? 1 : 0);
    if (needed > bufferBytes) return this.writeLong(text, newline);
    if (this.used + needed > bufferBytes) return this.flush().then(() => this.encode(text, newline));
    this.encode(text, newline);
    return undefined;
  }

  private encode(text: string, newline: boolean): void {
    const buffer = this.buffers[this.current] as Buffer;
    this.used += buffer.write(text, this.used, 'utf8');
    if (newline) buffer[this.used++] = 0x0a;
  }

  /** Longer than a buffer: pieces cut on code-point boundaries. */
  private async writeLong(text: string, newline: boolean): Promise<void> {
    const step = Math.floor(bufferBytes / maxBytesPerUnit) - 1;
    for (let start = 0; start < text.length;) {
      let end = Math.min(start + step, text.length);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      const wait = this.writeString(text.slice(start, end), newline && end === text.length);
      if (wait) await wait;
      start = end;
    }
  }

  /** Appends bytes as they are. */
  async writeBytes(data: Uint8Array): Promise<void> {
    await this.flush();
    await this.inflight;
    this.bytes += data.length;
    this.inflight = this.send(data);
  }

  /** Writes what is buffered and waits for every write to finish. */
  async end(): Promise<void> {
    await this.flush();
    await this.inflight;
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const chunk = (this.buffers[this.current] as Buffer).subarray(0, this.used);
    // The other buffer may still be on its way to the disk: wait before refilling it.
    await this.inflight;
    this.bytes += chunk.length;
    this.inflight = this.send(chunk);
    this.current ^= 1;
    this.used = 0;
  }

  private send(chunk: Uint8Array): Promise<void> {
    const sent = new Promise<void>((resolve, reject) => {
      // The callback runs once the bytes are written, so the buffer may then be reused.
      this.stream.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
    sent.catch(() => undefined); // surfaced by the next await on `inflight`
    return sent;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
