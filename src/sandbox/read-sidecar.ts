import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { PinnedFolder } from './pinned-folder.js';
import { repairPublishLink } from './publish-leftovers.js';

const sidecarFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Reads a small file the host wrote itself beside the model's files (a
 * `.meta.json`, the `.expired.jsonl` log) without trusting what is there now:
 * the folder is opened and checked ({@link PinnedFolder}), the file is opened
 * with O_NOFOLLOW | O_NONBLOCK (a symlink or a FIFO planted under that name
 * can neither redirect nor block the read) and is read only when the opened
 * file is a regular, singly linked file of at most `maxBytes`. Anything else
 * reads as absent (undefined): a sidecar is a hint, never a reason to fail.
 *
 * @param file real absolute path of the sidecar (its folder must be a real path)
 */
export async function readSidecar(file: string, maxBytes: number): Promise<string | undefined> {
  let folder: PinnedFolder;
  try {
    folder = await PinnedFolder.open(path.dirname(file));
  } catch {
    return undefined;
  }
  try {
    const handle = await open(folder.entry(path.basename(file)), sidecarFlags).catch(() => undefined);
    if (handle === undefined) return undefined;
    try {
      let stats = await handle.stat();
      // A sidecar whose publish was interrupted between link and unlink is repaired first.
      if (stats.isFile() && stats.nlink === 2 && (await repairPublishLink(folder, stats))) stats = await handle.stat();
      if (!stats.isFile() || stats.nlink > 1 || stats.size > maxBytes) return undefined;
      const buffer = Buffer.alloc(stats.size);
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled).toString('utf8');
    } finally {
      await handle.close().catch(() => undefined);
    }
  } finally {
    await folder.close();
  }
}
