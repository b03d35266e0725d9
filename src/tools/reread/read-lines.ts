import { isUtf8 } from 'node:buffer';
import { createInterface } from 'node:readline';
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

/** Streams the lines of an opened file (constant memory), numbered from 1. */
export async function* readLines(file: OpenedFile): AsyncGenerator<{ number: number; text: string }> {
  const stream = file.handle.createReadStream({ start: 0, encoding: 'utf8', autoClose: false });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const text of lines) {
      number += 1;
      yield { number, text };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** A line cut to `max` characters, marked when cut. */
export function capLine(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [line cut: ${text.length.toLocaleString('en-US')} characters]`;
}
