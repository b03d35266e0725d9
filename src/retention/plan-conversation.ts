import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { conversationFolders, expiredLogName, expiringFolders, isTempName, metadataSuffix, PinnedFolder } from '../sandbox/index.js';
import { SpillwayError } from '../errors.js';
import type { Pacer } from '../util/pacer.js';
import { listedFile, type ListedFile } from './remove-file.js';
import { addTo, emptyTally, type SweepProblem, type Tally } from './sweep-report.js';

/** A file the sweep will remove, with its metadata sidecar (removed only together with it). */
export interface PlannedFile extends ListedFile {
  /** Relative to the conversation folder ("results/0001-query_sql.jsonl"). */
  relative: string;
  sidecar?: PlannedFile;
  /** Recorded in .expired.jsonl when removed (spills and other files the model may ask for; not sidecars or temporary files). */
  recorded: boolean;
}

export interface ConversationPlan {
  id: string;
  dir: string;
  files: PlannedFile[];
  /** Sub-folders inside results/, errors/, args/, scripts/ that the sweep empties, deepest first (relative to the conversation). */
  folders: string[];
  /** The whole folder goes: it held nothing but empty fixed folders (and the expiry log) for a full retention period. */
  removeConversation: boolean;
  scanned: Tally;
  kept: Tally;
  skipped: Tally;
  errors: Tally;
  problems: SweepProblem[];
}

export interface PlanOptions {
  root: string;
  id: string;
  /** Files last modified before this (ms since the epoch) expire. */
  cutoffMs: number;
  pacer: Pacer;
}

/**
 * Decides what goes in one conversation, touching nothing: every file in
 * results/, errors/, args/ and scripts/ (at any depth) last modified before
 * the cutoff; a `.meta.json` sidecar with its data file; sub-folders left empty.
 * outputs/ is never read. Symlinks are never followed: a link is judged by its
 * own age and removed as a link.
 */
export async function planConversation(options: PlanOptions): Promise<ConversationPlan> {
  const dir = conversationDir(options.root, options.id);
  const plan: ConversationPlan = {
    id: options.id,
    dir,
    files: [],
    folders: [],
    removeConversation: false,
    scanned: emptyTally(),
    kept: emptyTally(),
    skipped: emptyTally(),
    errors: emptyTally(),
    problems: [],
  };
  const problem = (relative: string, code: string, message: string) => plan.problems.push({ path: `${options.id}/${relative}`, code, message });

  /** Plans one folder: would it be left empty, and does the sweep remove anything in it? */
  const planFolder = async (absolute: string, relative: string): Promise<{ emptied: boolean; removes: boolean }> => {
    let names: string[];
    // Listed through the opened folder, checked to be the one at this path: a folder swapped
    // for a symlink since its parent was listed is skipped, never followed.
    let folder: PinnedFolder | undefined;
    try {
      folder = PinnedFolder.openSync(absolute);
      names = readdirSync(folder.entry(''));
    } catch (error) {
      folder?.closeSync();
      const code = SpillwayError.is(error) ? 'FOLDER_REPLACED' : ((error as NodeJS.ErrnoException).code ?? 'UNKNOWN');
      if (code === 'ENOENT') return { emptied: true, removes: false };
      addTo(plan.scanned, 0);
      if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'FOLDER_REPLACED') {
        addTo(plan.skipped, 0);
        problem(relative, 'SYMLINK_FOLDER', 'was replaced (by a symlink?) while the sweep ran; not followed, not swept');
      } else {
        addTo(plan.errors, 0);
        problem(relative, code, `cannot list the folder: ${(error as Error).message}`);
      }
      return { emptied: false, removes: false };
    }
    let emptied = true;
    let removes = false;
    const files = new Map<string, { absolute: string; stats: Stats }>();
    const folders: { absolute: string; relative: string; stats: Stats }[] = [];
    for (const name of names) {
      // Names from readdir never hold a "/", and `absolute` is already normal: plain concatenation is enough (and cheaper than path.join).
      const child = `${absolute}${path.sep}${name}`;
      const childRelative = `${relative}/${name}`;
      let stats: Stats | undefined;
      try {
        stats = lstatSync(folder.entry(name), { throwIfNoEntry: false });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
        addTo(plan.scanned, 0);
        addTo(plan.errors, 0);
        problem(childRelative, code, (error as Error).message);
        emptied = false;
        continue;
      }
      const pause = options.pacer.step();
      if (pause !== undefined) await pause;
      if (stats === undefined) {
        // Gone between readdir and lstat: someone else removed it.
        addTo(plan.scanned, 0);
        addTo(plan.skipped, 0);
      } else if (stats.isDirectory()) folders.push({ absolute: child, relative: childRelative, stats });
      else files.set(name, { absolute: child, stats });
    }
    folder.closeSync();

    for (const folder of folders) {
      const inner = await planFolder(folder.absolute, folder.relative);
      removes ||= inner.removes;
      // An empty folder someone just made may be about to receive a file: only an old one, or one this sweep empties, goes.
      if (inner.emptied && (inner.removes || folder.stats.mtimeMs < options.cutoffMs)) {
        plan.folders.push(folder.relative);
        removes = true;
      } else emptied = false;
    }

    for (const [name, file] of files) {
      if (isSidecarOf(name, files)) continue; // decided with its data file
      const sidecarEntry = name.endsWith(metadataSuffix) ? undefined : files.get(`${name}${metadataSuffix}`);
      const unit = [file, ...(sidecarEntry === undefined ? [] : [sidecarEntry])];
      for (const part of unit) addTo(plan.scanned, part.stats.size);
      if (file.stats.mtimeMs >= options.cutoffMs) {
        for (const part of unit) addTo(plan.kept, part.stats.size);
        emptied = false;
        continue;
      }
      const planned: PlannedFile = {
        ...listedFile(file.absolute, file.stats),
        relative: `${relative}/${name}`,
        recorded: !isTempName(name) && !name.endsWith(metadataSuffix),
      };
      if (sidecarEntry !== undefined) {
        planned.sidecar = { ...listedFile(sidecarEntry.absolute, sidecarEntry.stats), relative: `${relative}/${name}${metadataSuffix}`, recorded: false };
      }
      plan.files.push(planned);
      removes = true;
    }
    return { emptied, removes };
  };

  const top = new Map<string, Stats>();
  for (const folder of expiringFolders) {
    const absolute = path.join(dir, folder);
    const info = lstatOrUndefined(absolute);
    if (info === undefined) continue;
    top.set(folder, info);
    if (info.isDirectory()) {
      await planFolder(absolute, folder);
    } else {
      // Never follow a symlinked (or replaced) fixed folder: whatever it points at is not ours.
      addTo(plan.scanned, 0);
      addTo(plan.skipped, 0);
      problem(
        folder,
        info.isSymbolicLink() ? 'SYMLINK_FOLDER' : 'NOT_A_FOLDER',
        info.isSymbolicLink() ? 'is a symlink; not followed, not swept' : 'is not a folder; not swept',
      );
    }
  }
  plan.removeConversation = plan.scanned.files === 0 && isIdleAndEmpty(dir, top, options.cutoffMs);
  return plan;
}

/**
 * A conversation folder may go when it holds only its fixed folders (all
 * empty) and the expiry log, and none of them changed for a whole retention
 * period: a sweep that empties a conversation leaves the folder (and the
 * "expired on …" answers) for one more period.
 */
function isIdleAndEmpty(dir: string, top: Map<string, Stats>, cutoffMs: number): boolean {
  const names = readdirOrUndefined(dir);
  if (names === undefined) return false;
  const allowed = new Set<string>([...conversationFolders, expiredLogName]);
  if (names.some((name) => !allowed.has(name))) return false;
  const self = lstatOrUndefined(dir);
  if (self === undefined || self.mtimeMs >= cutoffMs) return false;
  for (const name of names) {
    const info = top.get(name) ?? lstatOrUndefined(path.join(dir, name));
    if (info === undefined || info.mtimeMs >= cutoffMs) return false;
    if (name === expiredLogName) {
      if (!info.isFile()) return false;
      continue;
    }
    if (!info.isDirectory()) return false;
    if ((readdirOrUndefined(path.join(dir, name)) ?? ['?']).length > 0) return false;
  }
  return true;
}

/** The folder of conversation `id` (as listConversations names it) under the sandbox root. */
export function conversationDir(root: string, id: string): string {
  return path.join(root, id);
}

/** "x.meta.json" is the sidecar of "x" when "x" exists and is not itself a sidecar name. */
export function isSidecarOf(name: string, files: ReadonlyMap<string, unknown>): boolean {
  if (!name.endsWith(metadataSuffix)) return false;
  const base = name.slice(0, -metadataSuffix.length);
  return !base.endsWith(metadataSuffix) && files.has(base);
}

function lstatOrUndefined(absolute: string): Stats | undefined {
  try {
    return lstatSync(absolute, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function readdirOrUndefined(absolute: string): string[] | undefined {
  try {
    return readdirSync(absolute);
  } catch {
    return undefined;
  }
}
