import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { conversationFolders, isPublishTempName, metadataSuffix, PinnedFolder } from '../sandbox/index.js';
import type { Pacer } from './pacer.js';
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
    let names: string[];
    try {
      folder = PinnedFolder.openSync(absolute);
    } catch {
      return; // gone, or not a plain folder any more: nothing of ours to recover through it
    }
    const subfolders: string[] = [];
    try {
      names = readdirSync(folder.entry(''));
      const files = new Map<string, Stats>();
      for (const name of names) {
        const info = lstatSync(folder.entry(name), { throwIfNoEntry: false });
        const pause = options.pacer.step();
        if (pause !== undefined) await pause;
        if (info === undefined) continue;
        if (info.isDirectory()) {
          if (depth > 0 || (conversationFolders as readonly string[]).includes(name)) subfolders.push(name);
        } else if (info.isFile()) files.set(name, info);
      }
      const published = new Set<number>();
      for (const [name, info] of files) if (!isPublishTempName(name) && info.nlink > 1) published.add(info.ino);
      const top = relative.split('/')[0] ?? '';
      for (const [name, info] of files) {
        let kind: LeftoverKind | undefined;
        if (isPublishTempName(name)) {
          if (info.nlink > 1 && published.has(info.ino)) kind = 'second link';
          else if (info.mtimeMs < cutoffMs) kind = 'temporary file';
        } else if (sidecarFolders.has(top) && name.endsWith(metadataSuffix) && info.mtimeMs < cutoffMs) {
          const data = name.slice(0, -metadataSuffix.length);
          if (!files.has(data) && !data.endsWith(metadataSuffix)) kind = 'sidecar without data';
        }
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
