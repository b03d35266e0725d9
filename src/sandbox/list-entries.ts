import { readdir } from 'node:fs/promises';
import type { ConversationSandbox } from './conversation-sandbox.js';
import { conversationFolders, metadataSuffix } from './layout.js';
import { isTempName } from './atomic-write.js';
import { PinnedFolder } from './pinned-folder.js';

/** One name in a conversation folder, relative to the conversation ("results/0007-query_sql.jsonl", "results/parts"). */
export interface SandboxEntry {
  relative: string;
  folder: boolean;
}

/**
 * The files and folders directly in one folder of a conversation (`""` is the
 * conversation itself: its five folders), sorted by name, without temporary
 * files and sidecars. The folder is checked like any path from a client and
 * read through its opened handle, so a folder swapped for a symlink lists
 * nothing from outside. Throws the sandbox's PATH_* errors for a bad folder.
 */
export async function listEntries(sandbox: ConversationSandbox, folder: string): Promise<SandboxEntry[]> {
  if (folder === '' || folder === '.') return conversationFolders.map((name) => ({ relative: name, folder: true }));
  const resolved = await sandbox.resolveExisting(folder);
  const opened = await PinnedFolder.open(resolved.absolute);
  try {
    const items = await readdir(opened.entry(''), { withFileTypes: true });
    return items
      .filter((item) => (item.isDirectory() || item.isFile()) && !isTempName(item.name) && !item.name.endsWith(metadataSuffix))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((item) => ({ relative: `${resolved.relative}/${item.name}`, folder: item.isDirectory() }));
  } finally {
    await opened.close();
  }
}

/**
 * Paths of the conversation that start with what was typed, one folder level
 * at a time ("res" → "results/", "results/00" → "results/0007-query_sql.jsonl"):
 * completion for path arguments. A path the sandbox refuses completes to nothing.
 */
export async function completeSandboxPath(sandbox: ConversationSandbox, typed: string): Promise<string[]> {
  const cut = typed.lastIndexOf('/');
  const folder = cut === -1 ? '' : typed.slice(0, cut);
  const stem = cut === -1 ? typed : typed.slice(cut + 1);
  let entries: SandboxEntry[];
  try {
    entries = await listEntries(sandbox, folder);
  } catch {
    return [];
  }
  const prefix = folder === '' ? '' : `${folder}/`;
  return entries
    .filter((entry) => entry.relative.slice(entry.relative.lastIndexOf('/') + 1).startsWith(stem))
    .map((entry) => `${prefix}${entry.relative.slice(entry.relative.lastIndexOf('/') + 1)}${entry.folder ? '/' : ''}`);
}
