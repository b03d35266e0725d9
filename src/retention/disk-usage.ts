import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { expiringFolders, isFolderName, isPrincipalName, isTempName, metadataSuffix } from '../sandbox/index.js';
import { Pacer } from '../util/pacer.js';
import { isSidecarOf } from './plan-conversation.js';
import { listedFile, type ListedFile } from './remove-file.js';

/** A file the quota may evict (never in outputs/), with its sidecar. */
export interface EvictableFile extends ListedFile {
  /** The conversation's key, "<principal>/<conversation>" (its folder relative to the root). */
  conversationId: string;
  /** Relative to the conversation folder. */
  relative: string;
  /** File plus sidecar. */
  unitBytes: number;
  sidecar?: ListedFile;
}

export interface ConversationUsage {
  /** "<principal>/<conversation>" */
  id: string;
  /** Every file of the conversation, outputs/ included. */
  bytes: number;
  /** Oldest first; only filled when asked for. */
  evictable: EvictableFile[];
}

export interface SandboxUsage {
  bytes: number;
  conversations: Map<string, ConversationUsage>;
}

/** Temporary files younger than this may belong to a write in progress and are never evicted. */
const inProgressMs = 60 * 60 * 1000;

/**
 * Lists the conversation folders of a sandbox root as keys "<principal>/<conversation>"
 * (paths relative to the root): real folders with valid names at both levels; never
 * symlinks, never dot files (the marker, the lock, probes).
 */
export async function listConversations(root: string): Promise<string[]> {
  const found: string[] = [];
  const pacer = new Pacer();
  for (const principal of readdirSync(root)) {
    if (!isPrincipalName(principal) || !isPlainFolder(path.join(root, principal))) continue;
    let names: string[];
    try {
      names = readdirSync(path.join(root, principal));
    } catch {
      continue;
    }
    for (const name of names) {
      if (isFolderName(name) && isPlainFolder(path.join(root, principal, name))) found.push(`${principal}/${name}`);
      const pause = pacer.step();
      if (pause !== undefined) await pause;
    }
  }
  return found.sort();
}

function isPlainFolder(at: string): boolean {
  try {
    return lstatSync(at, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * Measures one conversation: all bytes (outputs/ included, since the quota is
 * about the disk) and, when `withFiles`, the files the quota may evict,
 * oldest first. Symlinks count as links and are never followed.
 */
export async function measureConversation(root: string, id: string, options: { withFiles: boolean; nowMs: number; pacer?: Pacer }): Promise<ConversationUsage> {
  const usage: ConversationUsage = { id, bytes: 0, evictable: [] };
  const pacer = options.pacer ?? new Pacer();
  const dir = path.join(root, id);
  const evictableTop = new Set<string>(expiringFolders);

  const walk = async (absolute: string, relative: string, evictable: boolean): Promise<void> => {
    let names: string[];
    try {
      names = readdirSync(absolute);
    } catch {
      return;
    }
    const files = new Map<string, Stats>();
    for (const name of names) {
      let info: Stats | undefined;
      try {
        info = lstatSync(path.join(absolute, name), { throwIfNoEntry: false });
      } catch {
        info = undefined;
      }
      const pause = pacer.step();
      if (pause !== undefined) await pause;
      if (info === undefined) continue;
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      if (info.isDirectory()) {
        await walk(path.join(absolute, name), childRelative, evictable || (relative === '' && evictableTop.has(name)));
        continue;
      }
      usage.bytes += info.size;
      if (evictable) files.set(name, info);
    }
    if (!options.withFiles) return;
    for (const [name, info] of files) {
      if (isSidecarOf(name, files)) continue;
      if (isTempName(name) && options.nowMs - info.mtimeMs < inProgressMs) continue;
      const sidecar = name.endsWith(metadataSuffix) ? undefined : files.get(`${name}${metadataSuffix}`);
      const file: EvictableFile = {
        ...listedFile(path.join(absolute, name), info),
        conversationId: id,
        relative: `${relative}/${name}`,
        unitBytes: info.size + (sidecar?.size ?? 0),
      };
      if (sidecar !== undefined) file.sidecar = listedFile(path.join(absolute, `${name}${metadataSuffix}`), sidecar);
      usage.evictable.push(file);
    }
  };
  await walk(dir, '', false);
  usage.evictable.sort(oldestFirst);
  return usage;
}

/** Measures every conversation of a sandbox root. */
export async function measureSandbox(root: string, options: { withFiles: boolean; nowMs: number }): Promise<SandboxUsage> {
  const usage: SandboxUsage = { bytes: 0, conversations: new Map() };
  const pacer = new Pacer();
  for (const id of await listConversations(root)) {
    const conversation = await measureConversation(root, id, { ...options, pacer });
    usage.bytes += conversation.bytes;
    usage.conversations.set(id, conversation);
  }
  return usage;
}

export function oldestFirst(a: EvictableFile, b: EvictableFile): number {
  return a.mtimeMs - b.mtimeMs || a.relative.localeCompare(b.relative);
}
