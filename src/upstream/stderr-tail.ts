import type { Stream } from 'node:stream';

/** Keeps the last `maxChars` characters written to a child's stderr, for error messages and status. */
export class StderrTail {
  private text = '';

  constructor(private readonly maxChars = 4096) {}

  attach(stream: Stream | null): void {
    if (stream === null) return;
    stream.on('data', (chunk: Buffer | string) => this.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
    stream.on('error', () => undefined);
  }

  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.maxChars);
  }

  /** The retained text, trimmed; empty when the child wrote nothing. */
  read(): string {
    return this.text.trim();
  }
}
