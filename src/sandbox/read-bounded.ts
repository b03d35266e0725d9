import type { FileHandle } from 'node:fs/promises';
import { SpillwayError } from '../errors.js';

/**
 * Reads an opened file whose size was checked against a cap, reading no
 * more than that cap even if the file grew after the check (a writer still
 * appending): a read of a model-chosen file never goes past its budget.
 */
export async function readBounded(handle: FileHandle, options: { maxBytes: number; name: string }): Promise<Buffer> {
  const { size } = await handle.stat();
  const want = Math.min(size, options.maxBytes);
  // One byte more than allowed tells a file that grew past the cap from one that fits.
  const buffer = Buffer.alloc(want + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (filled > options.maxBytes) {
    throw new SpillwayError('RESULT_TOO_LARGE', `The file ${options.name} is larger than the ${options.maxBytes} bytes allowed here (it grew while being read).`, {
      path: options.name,
      maxBytes: options.maxBytes,
    });
  }
  return buffer.subarray(0, filled);
}
