import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { conversationFolders, isPublishTempName, metadataSuffix, PinnedFolder } from '../sandbox/index.js';
import type { Pacer } from '../util/pacer.js';
import { listedFile, removeIfUnchanged } from './remove-file.js';
import { addTo, emptyTally, type SweepProblem, type Tally } from './sweep-report.js';

/** What a crash can leave behind, and why recovery removes it. */
export type LeftoverKind = 'second link' | 'temporary file' | 'sidecar without data';

export interface Leftover {
  /** Relative to the conversation folder. */
  path: string;
  kind: LeftoverKind;
  bytes: number;
}

export interface LeftoverReport {
  /** Temporary files and orphan sidecars removed (or, dry, that would be). */
  removed: Tally;
  /** Published files whose temporary second link was removed (or, dry, would be). */
  linksRepaired: number;
  leftovers: Leftover[];
  problems: SweepProblem[];
}

export interface RecoverOptions {
  /** The conversation folder (a real path, as the sweep's plan or the sandbox gives it). */
  dir: string;
  /** Temporary files and orphan sidecars last modified longer ago than this are leftovers. */
  graceMs: number;
  nowMs: number;
  dryRun?: boolean;
  pacer: Pacer;
  /** Paths (relative to the conversation) left to someone else, e.g. what the sweep's age pass removes. */
  skip?: ReadonlySet<string>;
}

/** Only spills have sidecars, and only the host writes under results/ and errors/. */
const sidecarFolders = new Set<string>(['results', 'errors']);

export function emptyLeftoverReport(): LeftoverReport {
  return { removed: emptyTally(), linksRepaired: 0, leftovers: [], problems: [] };
}

/**
 * Removes what an interrupted write left in one conversation, in every folder
 * (outputs/ included) and at any depth: a temporary name still linked to a
 * published file in the same folder (the publish died between link and
 * unlink: the file would be refused as hard-linked) goes at once; other
 * temporary files, and spill sidecars whose data never appeared, go once they
 * are older than the grace period (younger ones may be a write in progress).
 * Every folder is opened and checked (PinnedFolder) and every removal goes
 * through it with removeIfUnchanged: nothing is followed through a symlink.
 */
export async function recoverConversation(options: RecoverOptions): Promise<LeftoverReport> {
  const report = emptyLeftoverReport();
  const cutoffMs = options.nowMs - options.graceMs;

  const visit = async (absolute: string, relative: string, depth: number): Promise<void> => {
    let folder: PinnedFolder;
    try {
      folder = PinnedFolder.openSync(absolute);
    } catch {
      return; // gone, or not a plain folder any more: nothing of ours to recover through it
    }
    const subfolders: string[] = [];
    try {
      // Names and types from readdir; only the few candidates (temporary names, sidecars whose
      // data is missing) are lstat'ed, so this pass costs about one readdir per folder.
      const entries = readdirSync(folder.entry(''), { withFileTypes: true });
      const listed = options.pacer.step();
      if (listed !== undefined) await listed;
      const names = new Set<string>();
      const candidates: string[] = [];
      const top = relative.split('/')[0] ?? '';
      for (const entry of entries) {
        if (entry.isDirectory()) {
          if (depth > 0 || (conversationFolders as readonly string[]).includes(entry.name)) subfolders.push(entry.name);
          continue;
        }
        names.add(entry.name);
        if (isPublishTempName(entry.name) || (sidecarFolders.has(top) && entry.name.endsWith(metadataSuffix))) candidates.push(entry.name);
      }
      let published: Set<number> | undefined;
      /** Inodes of the folder's other files that have more than one link (listed once, only when a temporary file has two). */
      const publishedInodes = async (): Promise<Set<number>> => {
        if (published !== undefined) return published;
        published = new Set<number>();
        for (const name of names) {
          if (isPublishTempName(name)) continue;
          const info = lstatSync(folder.entry(name), { throwIfNoEntry: false });
          if (info?.isFile() === true && info.nlink > 1) published.add(info.ino);
          const pause = options.pacer.step();
          if (pause !== undefined) await pause;
        }
        return published;
      };
      for (const name of candidates) {
        const isTemp = isPublishTempName(name);
        if (!isTemp) {
          const data = name.slice(0, -metadataSuffix.length);
          if (names.has(data) || data.endsWith(metadataSuffix)) continue;
        }
        const info = lstatSync(folder.entry(name), { throwIfNoEntry: false });
        const pause = options.pacer.step();
        if (pause !== undefined) await pause;
        if (info === undefined || !info.isFile()) continue;
        let kind: LeftoverKind | undefined;
        if (isTemp && info.nlink > 1 && (await publishedInodes()).has(info.ino)) kind = 'second link';
        else if (info.mtimeMs < cutoffMs) kind = isTemp ? 'temporary file' : 'sidecar without data';
        const childRelative = relative === '' ? name : `${relative}/${name}`;
        if (kind === undefined || options.skip?.has(childRelative) === true) continue;
        if (!options.dryRun) {
          const outcome = removeIfUnchanged(listedFile(`${absolute}${path.sep}${name}`, info), folder.entry(name));
          if (outcome.outcome === 'failed') {
            report.problems.push({ path: childRelative, code: outcome.code, message: outcome.message });
            continue;
          }
          if (outcome.outcome !== 'removed') continue;
        }
        report.leftovers.push({ path: childRelative, kind, bytes: kind === 'second link' ? 0 : info.size });
        // A second link frees no space: the bytes stay under the published name.
        if (kind === 'second link') report.linksRepaired += 1;
        else addTo(report.removed, info.size);
      }
    } catch (error) {
      report.problems.push({ path: relative, code: (error as NodeJS.ErrnoException).code ?? 'UNKNOWN', message: (error as Error).message });
    } finally {
      folder.closeSync();
    }
    for (const name of subfolders) await visit(`${absolute}${path.sep}${name}`, relative === '' ? name : `${relative}/${name}`, depth + 1);
  };

  await visit(options.dir, '', 0);
  return report;
}

/** Adds one conversation's report to a running total (paths made relative to the root with `prefix`). */
export function mergeLeftovers(into: LeftoverReport, from: LeftoverReport, prefix: string): void {
  addTo(into.removed, from.removed.bytes, from.removed.files);
  into.linksRepaired += from.linksRepaired;
  for (const leftover of from.leftovers) into.leftovers.push({ ...leftover, path: `${prefix}/${leftover.path}` });
  for (const problem of from.problems) into.problems.push({ ...problem, path: `${prefix}/${problem.path}` });
}
