import path from 'node:path';
import type { Config } from '../config/schema.js';
import { metadataSuffix } from '../sandbox/index.js';
import { fileExpiryLog, type ExpiredEntry, type ExpiryLog } from './expired-log.js';
import { oldestFirst, type EvictableFile, type SandboxUsage } from './disk-usage.js';
import { removeInFolder, type ListedFile } from './remove-file.js';
import { SweepFolders } from './sweep-folders.js';
import { addTo, emptyTally, type SweepProblem, type Tally } from './sweep-report.js';

/** retention.maxBytes and retention.maxBytesPerConversation; 0 means no limit. */
export type QuotaLimits = Pick<Config['retention'], 'maxBytes' | 'maxBytesPerConversation'>;

export function hasQuota(limits: QuotaLimits | undefined): limits is QuotaLimits {
  return limits !== undefined && (limits.maxBytes > 0 || limits.maxBytesPerConversation > 0);
}

/**
 * Chooses what to evict so the sandbox fits its quota: first, in each
 * conversation over its own limit, its oldest files; then, while the whole
 * sandbox is over its limit, the oldest files of any conversation. Only files
 * in results/, errors/, args/ and scripts/ are ever chosen (outputs/ counts
 * toward the size but is never evicted), and never a protected path (the
 * spill just written). With `onlyConversation` (a spill's own quota check),
 * only that conversation's files are chosen: one conversation's writes never
 * evict another conversation's files. Returns the choice and the bytes left.
 */
export function chooseEvictions(
  usage: SandboxUsage,
  limits: QuotaLimits,
  protect: ReadonlySet<string> = new Set(),
  onlyConversation?: string,
): { files: EvictableFile[]; bytesAfter: number } {
  const chosen: EvictableFile[] = [];
  const taken = new Set<EvictableFile>();
  let total = usage.bytes;
  const allowed = (file: EvictableFile) => !protect.has(file.absolute) && !taken.has(file);
  const take = (file: EvictableFile) => {
    chosen.push(file);
    taken.add(file);
    total -= file.unitBytes;
    return file.unitBytes;
  };

  if (limits.maxBytesPerConversation > 0) {
    for (const conversation of usage.conversations.values()) {
      if (onlyConversation !== undefined && conversation.id !== onlyConversation) continue;
      let bytes = conversation.bytes;
      for (const file of conversation.evictable) {
        if (bytes <= limits.maxBytesPerConversation) break;
        if (allowed(file)) bytes -= take(file);
      }
    }
  }
  if (limits.maxBytes > 0 && total > limits.maxBytes) {
    const everyone = [...usage.conversations.values()]
      .filter((conversation) => onlyConversation === undefined || conversation.id === onlyConversation)
      .flatMap((conversation) => conversation.evictable)
      .sort(oldestFirst);
    for (const file of everyone) {
      if (total <= limits.maxBytes) break;
      if (allowed(file)) take(file);
    }
  }
  return { files: chosen, bytesAfter: total };
}

/** Files recorded in .expired.jsonl ahead of their removal, per append. */
const recordAhead = 256;

export interface EvictionResult {
  evicted: Tally;
  skipped: Tally;
  errors: Tally;
  problems: SweepProblem[];
  /** Removed paths relative to the sandbox root. */
  removed: string[];
}

export interface EvictOptions {
  now: Date;
  expiredLogKeepMs: number;
  /** Where evicted files are recorded; default each conversation's .expired.jsonl. */
  expiryLog?: ExpiryLog;
}

/**
 * Removes the chosen files (each only if unchanged since it was measured) with
 * their sidecars, and records them (before they go) in the expiry log
 * (each conversation's .expired.jsonl unless told otherwise) so a later read
 * says the file was removed and how to get it again.
 */
export async function evictFiles(root: string, files: readonly EvictableFile[], options: EvictOptions): Promise<EvictionResult> {
  const result: EvictionResult = { evicted: emptyTally(), skipped: emptyTally(), errors: emptyTally(), problems: [], removed: [] };
  const expiredAt = options.now.toISOString();
  const opened = new Map<string, SweepFolders>();
  const foldersOf = (id: string) => {
    let folders = opened.get(id);
    if (folders === undefined) {
      folders = new SweepFolders(path.join(root, id));
      opened.set(id, folders);
    }
    return folders;
  };
  try {
    return await evictWith(files, foldersOf, expiredAt, options, result);
  } finally {
    for (const folders of opened.values()) folders.closeAll();
  }
}

async function evictWith(
  files: readonly EvictableFile[],
  foldersOf: (id: string) => SweepFolders,
  expiredAt: string,
  options: EvictOptions,
  result: EvictionResult,
): Promise<EvictionResult> {
  const expiryLog = options.expiryLog ?? fileExpiryLog;
  // Recorded in the expiry log before removal, a batch at a time (see applyPlan): a kill
  // half-way leaves every evicted path answering PATH_EXPIRED.
  for (let start = 0; start < files.length; start += recordAhead) {
    const batch = files.slice(start, start + recordAhead);
    const expired = new Map<string, ExpiredEntry[]>();
    for (const file of batch) expired.set(file.conversationId, [...(expired.get(file.conversationId) ?? []), { path: file.relative, expiredAt }]);
    const unrecorded = new Set<string>();
    for (const [id, entries] of expired) {
      try {
        await expiryLog.record({ conversationId: id, folders: foldersOf(id), entries, now: options.now, keepMs: options.expiredLogKeepMs });
      } catch (error) {
        result.problems.push({ path: `${id}/.expired.jsonl`, code: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN', message: (error as Error).message });
        // A required log that could not be written keeps the files: nothing goes unrecorded.
        if (expiryLog.required) unrecorded.add(id);
      }
    }
    for (const file of batch) {
      if (unrecorded.has(file.conversationId)) addTo(result.skipped, file.unitBytes, file.sidecar === undefined ? 1 : 2);
      else evictOne(file, foldersOf, result);
    }
  }
  return result;
}

function evictOne(file: EvictableFile, foldersOf: (id: string) => SweepFolders, result: EvictionResult): void {
  const parts: { listed: ListedFile; relative: string }[] = [{ listed: file, relative: file.relative }];
  if (file.sidecar !== undefined) parts.push({ listed: file.sidecar, relative: `${file.relative}${metadataSuffix}` });
  for (const [index, part] of parts.entries()) {
    const outcome = removeInFolder(foldersOf(file.conversationId), part.relative, part.listed);
    if (outcome.outcome === 'removed') {
      addTo(result.evicted, part.listed.size);
      result.removed.push(`${file.conversationId}/${part.relative}`);
      continue;
    }
    if (outcome.outcome === 'failed') {
      addTo(result.errors, part.listed.size);
      result.problems.push({ path: `${file.conversationId}/${part.relative}`, code: outcome.code, message: outcome.message });
    } else addTo(result.skipped, part.listed.size);
    if (index === 0 && outcome.outcome !== 'vanished') {
      // The data file stayed: keep its sidecar with it.
      if (file.sidecar !== undefined) addTo(result.skipped, file.sidecar.size);
      break;
    }
  }
}
