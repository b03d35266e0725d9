import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '../../util/type-builder.js';
import { defineTool } from '../../host/define-tool.js';
import { isTempName, PinnedFolder, readSidecar } from '../../sandbox/index.js';
import { conversationFolders, expiringFolders, metadataSuffix, type ConversationFolder } from '../../sandbox/layout.js';
import { describeColumn } from '../../spill/profile-text.js';
import type { SpillRef } from '../../spill/spill-ref.js';
import { listFilesOutput } from './reread-output.js';
import { readsOnly } from '../tool-annotations.js';

export interface FileEntry {
  path: string;
  bytes: number;
  format: string;
  rows?: number;
  columns?: string[];
  /** Tables spilled with a profile: one line per column (inspect_file gives the whole profile). */
  profile?: string[];
  modifiedAt: string;
  /** When retention will delete it; absent for outputs/, which never expire. */
  expiresAt?: string;
}

export const listFilesTool = defineTool({
  name: 'list_files',
  outputSchema: listFilesOutput,
  description: [
    "List the files of this conversation's sandbox with size, format, rows, columns and a one-line profile per column (for spilled tables) and expiry time.",
    'Folders: results/ (spilled tool results), errors/ (full error texts), args/ (arguments files), scripts/, outputs/ (files given to the user; never expire).',
    'Give dir (e.g. "results") to list one folder.',
  ].join(' '),
  inputSchema: Type.Object(
    { dir: Type.Optional(Type.String({ description: 'A folder relative to the conversation folder, e.g. "results". Default: all folders.' })) },
    { additionalProperties: false },
  ),
  spill: false,
  annotations: readsOnly('List sandbox files'),
  async handler(args, context) {
    const { sandbox, config } = context;
    const start = args.dir === undefined || args.dir === '' || args.dir === '.' ? undefined : await sandbox.resolveExisting(args.dir);
    await sandbox.ensure();
    const roots = start === undefined ? conversationFolders.map((folder) => sandbox.folderPath(folder)) : [start.absolute];
    const entries: FileEntry[] = [];
    let more = 0;
    const max = config.reread.maxListEntries;
    const retentionMs = config.retention.days * 86_400_000;
    const walk = async (dir: string): Promise<void> => {
      // Listed through the opened folder (PinnedFolder): a folder swapped for a symlink lists nothing from outside.
      const folder = await PinnedFolder.open(dir).catch(() => undefined);
      if (folder === undefined) return;
      try {
        await walkIn(dir, folder);
      } finally {
        await folder.close();
      }
    };
    const walkIn = async (dir: string, opened: PinnedFolder): Promise<void> => {
      const items: Dirent[] = await readdir(opened.entry(''), { withFileTypes: true }).catch(() => []);
      items.sort((a, b) => a.name.localeCompare(b.name));
      for (const item of items) {
        const absolute = path.join(dir, item.name);
        if (item.isDirectory()) {
          await walk(absolute);
          continue;
        }
        if (!item.isFile() || isTempName(item.name) || item.name.endsWith(metadataSuffix)) continue;
        if (entries.length >= max) {
          more += 1;
          continue;
        }
        const info = await lstat(opened.entry(item.name)).catch(() => undefined);
        if (info === undefined || !info.isFile()) continue;
        const relative = sandbox.relativeOf(absolute);
        const folder = relative.split('/')[0] as ConversationFolder;
        const meta = await readMetadata(`${absolute}${metadataSuffix}`);
        const entry: FileEntry = {
          path: relative,
          bytes: info.size,
          format: meta?.format ?? formatFromName(item.name),
          modifiedAt: info.mtime.toISOString(),
        };
        if (meta?.rows !== undefined) entry.rows = meta.rows;
        if (meta?.columns !== undefined) entry.columns = meta.columns;
        if (meta?.profile !== undefined) entry.profile = meta.profile.columns.map((column) => describeColumn(column, meta.profile?.rows ?? 0));
        if (expiringFolders.includes(folder)) entry.expiresAt = meta?.expiresAt ?? new Date(info.mtime.getTime() + retentionMs).toISOString();
        entries.push(entry);
      }
    };
    for (const root of roots) await walk(root);
    const result: { files: FileEntry[]; note?: string } = { files: entries };
    if (more > 0) result.note = `${more} more file(s) not listed (cap ${max}); list one folder with dir.`;
    return { value: result };
  },
});

async function readMetadata(file: string): Promise<Partial<SpillRef> | undefined> {
  try {
    // Never through a planted symlink or FIFO (readSidecar): a listing must not hang or read outside.
    const text = await readSidecar(file, 1024 * 1024);
    return text === undefined ? undefined : (JSON.parse(text) as Partial<SpillRef>);
  } catch {
    return undefined;
  }
}

function formatFromName(name: string): string {
  const extension = path.extname(name).slice(1).toLowerCase();
  return extension === 'txt' ? 'text' : extension || 'unknown';
}
