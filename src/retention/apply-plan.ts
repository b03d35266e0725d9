import { lstatSync, mkdirSync, rmdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { conversationFolders, expiredLogName, folderMode, PinnedFolder } from '../sandbox/index.js';
import { fileExpiryLog, type ExpiredEntry, type ExpiryLog } from './expired-log.js';
import type { Pacer } from '../util/pacer.js';
import type { ConversationPlan, PlannedFile } from './plan-conversation.js';
import { removeInFolder, type RemoveOutcome } from './remove-file.js';
import { SweepFolders } from './sweep-folders.js';
import { addTo, emptyTally, type SweepProblem, type Tally } from './sweep-report.js';

/** What removing one conversation's planned files did. */
export interface AppliedPlan {
  deleted: Tally;
  skipped: Tally;
  errors: Tally;
  foldersRemoved: number;
  conversationRemoved: boolean;
  problems: SweepProblem[];
  /** Removed paths relative to the conversation (folders end in "/"). */
  removed: string[];
}

export interface ApplyOptions {
  now: Date;
  /** How long "expired on …" answers are kept in .expired.jsonl. */
  expiredLogKeepMs: number;
  pacer: Pacer;
  /** Where removed files are recorded; default each conversation's .expired.jsonl. */
  expiryLog?: ExpiryLog;
}

/** Files recorded in .expired.jsonl ahead of their removal, per append. */
const recordAhead = 256;

/**
 * Removes what {@link planConversation} chose. Each file is checked again just
 * before it goes: one that vanished or changed (someone rewrote it, so it is
 * no longer old) is skipped, not an error; its sidecar stays with it. Removed
 * files are recorded in the conversation's .expired.jsonl before they go. Every removal
 * goes through its folder opened and checked again (SweepFolders): a folder
 * swapped for a symlink, or outputs/ moved in, skips its files.
 */
export async function applyPlan(plan: ConversationPlan, options: ApplyOptions): Promise<AppliedPlan> {
  const folders = new SweepFolders(plan.dir);
  try {
    return await applyIn(plan, options, folders);
  } finally {
    folders.closeAll();
  }
}

async function applyIn(plan: ConversationPlan, options: ApplyOptions, folders: SweepFolders): Promise<AppliedPlan> {
  const applied: AppliedPlan = {
    deleted: emptyTally(),
    skipped: emptyTally(),
    errors: emptyTally(),
    foldersRemoved: 0,
    conversationRemoved: false,
    problems: [],
    removed: [],
  };
  const expiredAt = options.now.toISOString();
  const expiryLog = options.expiryLog ?? fileExpiryLog;
  /** False when the batch must stay: its record failed and the log is required before removal. */
  const record = async (entries: ExpiredEntry[]): Promise<boolean> => {
    if (entries.length === 0) return true;
    try {
      await expiryLog.record({ conversationId: plan.id, folders, entries, now: options.now, keepMs: options.expiredLogKeepMs });
      return true;
    } catch (error) {
      applied.problems.push({
        path: `${plan.id}/${expiredLogName}`,
        code: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN',
        message: `could not record expired files${expiryLog.required ? ', so they were kept' : ''}: ${(error as Error).message}`,
      });
      return !expiryLog.required;
    }
  };

  const removeOne = (file: PlannedFile): RemoveOutcome['outcome'] => {
    const result = removeInFolder(folders, file.relative, file);
    if (result.outcome === 'removed') {
      addTo(applied.deleted, file.size);
      applied.removed.push(file.relative);
    } else if (result.outcome === 'failed') {
      addTo(applied.errors, file.size);
      applied.problems.push({ path: `${plan.id}/${file.relative}`, code: result.code, message: result.message });
    } else {
      addTo(applied.skipped, file.size);
    }
    return result.outcome;
  };

  // Each batch is recorded in .expired.jsonl before any of its files goes, so a sweep killed
  // half-way leaves every removed path answering PATH_EXPIRED. A recorded file that was then
  // not removed (kill, changed, failed) is harmless: it still opens, since the log is read only
  // for a missing file, and the next sweep removes it and records it again.
  for (let start = 0; start < plan.files.length; start += recordAhead) {
    const batch = plan.files.slice(start, start + recordAhead);
    if (!(await record(batch.filter((file) => file.recorded).map((file) => ({ path: file.relative, expiredAt }))))) {
      for (const file of batch) addTo(applied.skipped, file.size + (file.sidecar?.size ?? 0), file.sidecar === undefined ? 1 : 2);
      continue;
    }
    for (const file of batch) {
      const outcome = removeOne(file);
      if (file.sidecar !== undefined) {
        // The sidecar follows its file: gone (by us or by someone else) means the sidecar goes; kept means kept.
        if (outcome === 'removed' || outcome === 'vanished') removeOne(file.sidecar);
        else addTo(applied.skipped, file.sidecar.size);
      }
      const pause = options.pacer.step();
      if (pause !== undefined) await pause;
    }
  }

  for (const folder of plan.folders) {
    try {
      const slash = folder.lastIndexOf('/');
      const parent = slash < 0 ? undefined : folders.folder(folder.slice(0, slash));
      // rmdir never follows the last name; the parent is the opened, checked folder.
      if (parent === undefined) continue;
      rmdirSync(parent.entry(folder.slice(slash + 1)));
      applied.foldersRemoved += 1;
      applied.removed.push(`${folder}/`);
    } catch (error) {
      // Not empty any more (someone wrote into it) or already gone: leave it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') {
        applied.problems.push({ path: `${plan.id}/${folder}`, code: code ?? 'UNKNOWN', message: (error as Error).message });
      }
    }
  }

  if (plan.removeConversation) applied.conversationRemoved = removeIdleConversation(plan.dir, folders);
  return applied;
}

/**
 * Removes an idle, empty conversation folder. If a fixed folder turns out not
 * to be empty (the conversation came back to life), the ones already removed
 * are put back and the folder stays.
 */
function removeIdleConversation(dir: string, folders: SweepFolders): boolean {
  const conversation = folders.conversation();
  if (conversation === undefined) return false;
  const removed: string[] = [];
  const putBack = () => {
    for (const name of removed) {
      try {
        mkdirSync(conversation.entry(name), folderMode);
      } catch {
        // made again by the conversation meanwhile
      }
    }
  };
  for (const folder of conversationFolders) {
    try {
      rmdirSync(conversation.entry(folder));
      removed.push(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      putBack();
      return false;
    }
  }
  const log = conversation.entry(expiredLogName);
  const info = lstatSync(log, { throwIfNoEntry: false });
  if (info !== undefined && (info.isFile() || info.isSymbolicLink())) {
    try {
      unlinkSync(log);
    } catch {
      // gone already
    }
  }
  folders.closeAll();
  let principal: PinnedFolder | undefined;
  try {
    // Through the opened principal folder (a symlink in its place is refused); rmdir never follows the last name.
    principal = PinnedFolder.openSync(path.dirname(dir));
    rmdirSync(principal.entry(path.basename(dir)));
    return true;
  } catch {
    // Something new appeared: give it its folders back.
    const again = new SweepFolders(dir);
    try {
      const folder = again.conversation();
      if (folder !== undefined) {
        for (const name of removed) {
          try {
            mkdirSync(folder.entry(name), folderMode);
          } catch {
            // made again meanwhile
          }
        }
      }
    } finally {
      again.closeAll();
    }
    return false;
  } finally {
    principal?.closeSync();
  }
}
