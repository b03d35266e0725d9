import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isTempName, type ConversationSandbox } from '../sandbox/index.js';
import { conversationFolders, metadataSuffix } from '../sandbox/layout.js';

/** File names DuckDB may read: JSONL, JSON, CSV/TSV and Parquet. */
export const dataFilePattern = /\.(?:jsonl|ndjson|json|csv|tsv|parquet)$/i;

const maxFiles = 10_000;

export interface DataFiles {
  /** Absolute paths, sorted. */
  paths: string[];
  /** The size of the largest of them (0 when there are none). */
  largestBytes: number;
}

/**
 * The absolute paths of a conversation's data files that query_files may read:
 * regular files (not symlinks, not hard-linked) in its own folders, with a data
 * extension. DuckDB is given exactly this list (`allowed_paths`) and nothing
 * else, so a name outside it (another conversation, /etc/passwd, a symlink
 * planted in the folder, a glob) is refused by DuckDB itself.
 */
export async function listDataFiles(sandbox: ConversationSandbox): Promise<DataFiles> {
  await sandbox.ensure();
  const files: string[] = [];
  let largestBytes = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const items: Dirent[] = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const item of items) {
      if (files.length >= maxFiles) return;
      const absolute = path.join(dir, item.name);
      if (item.isDirectory() && depth < 4) await walk(absolute, depth + 1);
      if (!item.isFile() || isTempName(item.name) || item.name.endsWith(metadataSuffix) || !dataFilePattern.test(item.name)) continue;
      const stats = await lstat(absolute).catch(() => undefined);
      if (stats?.isFile() !== true || stats.nlink !== 1) continue;
      files.push(absolute);
      largestBytes = Math.max(largestBytes, stats.size);
    }
  };
  for (const folder of conversationFolders) {
    // A top folder replaced by a symlink is not followed (readdir would follow it).
    const info = await lstat(sandbox.folderPath(folder)).catch(() => undefined);
    if (info?.isDirectory() === true) await walk(sandbox.folderPath(folder), 0);
  }
  return { paths: files.sort(), largestBytes };
}
