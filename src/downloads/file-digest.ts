import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

const chunkBytes = 1024 * 1024;

/**
 * The SHA-256 of an opened file's bytes, in hex, read in 1 MiB chunks from
 * offset 0 (the handle's position is not used, so the caller may stream it
 * afterwards): a 200 MB export never sits in memory whole.
 */
export async function fileDigest(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest('hex');
}
