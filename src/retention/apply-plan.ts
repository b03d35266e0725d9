import { lstat, mkdir, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { conversationFolders, expiredLogName } from '../sandbox/index.js';
import { recordExpired, type ExpiredEntry } from './expired-log.js';
import type { Pacer } from './pacer.js';
import type { ConversationPlan, PlannedFile } from './plan-conversation.js';
import { removeIfUnchanged, type RemoveOutcome } from './remove-file.js';
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
}

/**
 * Removes what {@link planConversation} chose. Each file is checked again just
 * before it goes: one that vanished or changed (someone rewrote it, so it is
 * no longer old) is skipped, not an error; its sidecar stays with it. Removed
 * files are recorded in the conversation's .expired.jsonl.
 */
export async function applyPlan(plan: ConversationPlan, options: ApplyOptions): Promise<AppliedPlan> {
  const applied: AppliedPlan = { deleted: emptyTally(), skipped: emptyTally(), errors: emptyTally(), foldersRemoved: 0, conversationRemoved: false, problems: [], removed: [] };
  const expired: ExpiredEntry[] = [];
  const expiredAt = options.now.toISOString();

  const removeOne = (file: PlannedFile): RemoveOutcome['outcome'] => {
    const result = removeIfUnchanged(file);
    if (result.outcome === 'removed') {
      addTo(applied.deleted, file.size);
      applied.removed.push(file.relative);
      if (file.recorded) expired.push({ path: file.relative, expiredAt });
    } else if (result.outcome === 'failed') {
      addTo(applied.errors, file.size);
      applied.problems.push({ path: `${plan.id}/${file.relative}`, code: result.code, message: result.message });
    } else {
      addTo(applied.skipped, file.size);
    }
    return result.outcome;
  };

  for (const file of plan.files) {
    const outcome = removeOne(file);
    if (file.sidecar !== undefined) {
      // The sidecar follows its file: gone (by us or by someone else) means the sidecar goes; kept means kept.
      if (outcome === 'removed' || outcome === 'vanished') removeOne(file.sidecar);
      else addTo(applied.skipped, file.sidecar.size);
    }
    const pause = options.pacer.step();
    if (pause !== undefined) await pause;
  }

  if (expired.length > 0) {
    try {
      recordExpired(plan.dir, expired, { now: options.now, keepMs: options.expiredLogKeepMs });
    } catch (error) {
      applied.problems.push({ path: `${plan.id}/${expiredLogName}`, code: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN', message: `could not record expired files: ${(error as Error).message}` });
    }
  }

  for (const folder of plan.folders) {
    try {
      await rmdir(path.join(plan.dir, folder));
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

  if (plan.removeConversation) applied.conversationRemoved = await removeIdleConversation(plan.dir);
  return applied;
}

/**
 * Removes an idle, empty conversation folder. If a fixed folder turns out not
 * to be empty (the conversation came back to life), the ones already removed
 * are put back and the folder stays.
 */
async function removeIdleConversation(dir: string): Promise<boolean> {
  const removed: string[] = [];
  for (const folder of conversationFolders) {
    try {
      await rmdir(path.join(dir, folder));
      removed.push(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      await Promise.all(removed.map((name) => mkdir(path.join(dir, name)).catch(() => undefined)));
      return false;
    }
  }
  const log = path.join(dir, expiredLogName);
  const info = await lstat(log).catch(() => undefined);
  if (info !== undefined && (info.isFile() || info.isSymbolicLink())) await unlink(log).catch(() => undefined);
  try {
    await rmdir(dir);
    return true;
  } catch {
    // Something new appeared: give it its folders back.
    const left = await readdir(dir).catch(() => undefined);
    if (left !== undefined) await Promise.all(removed.map((name) => mkdir(path.join(dir, name)).catch(() => undefined)));
    return false;
  }
}
