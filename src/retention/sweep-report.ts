import { formatBytes, formatCount, plural } from '../util/format.js';

/** A count of files and the bytes they hold. */
export interface Tally {
  files: number;
  bytes: number;
}

/** Something the sweep could not do, with the path relative to the sandbox root. */
export interface SweepProblem {
  path: string;
  /** An errno code (EACCES, EPERM, ...) or SYMLINK_FOLDER for a fixed folder that is a symlink. */
  code: string;
  message: string;
}

/**
 * What one sweep did. Invariant: scanned = deleted + kept + skipped + errors
 * (files and bytes), where `deleted` includes metadata sidecars and quota
 * evictions. In a dry run, `deleted` is what would go.
 */
export interface SweepReport {
  root: string;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Files last modified before this instant were expired. */
  cutoff: string;
  olderThanMs: number;
  conversations: number;
  scanned: Tally;
  deleted: Tally;
  kept: Tally;
  /** Changed or removed by someone else mid-sweep, or not safe to touch (a symlinked folder): left alone. */
  skipped: Tally;
  errors: Tally;
  /** Emptied sub-folders removed, and idle empty conversation folders removed. */
  foldersRemoved: number;
  conversationsRemoved: number;
  /** Files removed (oldest first, never outputs/) to bring the sandbox under retention.maxBytes / maxBytesPerConversation. */
  quotaEvictions: Tally;
  /** Bytes in the sandbox after the sweep, when a quota is set (outputs included). */
  bytesAfter?: number;
  /**
   * What interrupted writes left (temporary files past retention.tempGraceMs,
   * temporary second links, sidecars without data), in every folder, outputs/
   * included; not counted in scanned/deleted. In a dry run, what would go.
   */
  leftovers: { removed: Tally; linksRepaired: number };
  /** The leftovers by path (relative to the root) and kind; only when paths are asked for. */
  leftoverPaths?: { path: string; kind: string }[];
  /** At most 100 problems, for the log. */
  problems: SweepProblem[];
  problemCount: number;
  /** Paths (relative to the root) removed or, in a dry run, that would be removed; only when asked for. Folders end in "/". */
  paths?: string[];
}

export function emptyTally(): Tally {
  return { files: 0, bytes: 0 };
}

export function addTo(tally: Tally, bytes: number, files = 1): void {
  tally.files += files;
  tally.bytes += bytes;
}

/** The report for people: one summary paragraph, dry run or not. */
export function formatSweepReport(report: SweepReport): string {
  const tally = (t: Tally) => `${plural(t.files, 'file')} (${formatBytes(t.bytes)})`;
  const verb = report.dryRun ? 'would delete' : 'deleted';
  const lines = [
    `${report.dryRun ? 'Dry run: nothing was deleted. ' : ''}Retention sweep of ${report.root}: files older than ${describeAge(report.olderThanMs)} (last modified before ${report.cutoff}).`,
    `  conversations: ${formatCount(report.conversations)}`,
    `  scanned:       ${tally(report.scanned)} in results/, errors/, args/, scripts/ (outputs/ is never touched)`,
    `  ${`${verb}:`.padEnd(15)}${tally(report.deleted)}${report.quotaEvictions.files > 0 ? `, of which ${tally(report.quotaEvictions)} to meet the disk quota` : ''}`,
    `  kept:          ${tally(report.kept)}`,
    `  skipped:       ${tally(report.skipped)} (changed or removed during the sweep, or not safe to touch)`,
    `  errors:        ${tally(report.errors)}`,
    `  folders:       ${formatCount(report.foldersRemoved)} emptied sub-folder(s) and ${formatCount(report.conversationsRemoved)} idle conversation folder(s) ${report.dryRun ? 'would be ' : ''}removed`,
  ];
  if (report.leftovers.removed.files > 0 || report.leftovers.linksRepaired > 0 || report.dryRun) {
    lines.push(
      `  leftovers:     ${tally(report.leftovers.removed)} left by interrupted writes and ${formatCount(report.leftovers.linksRepaired)} temporary second link(s) ${report.dryRun ? 'would be ' : ''}removed`,
    );
  }
  if (report.bytesAfter !== undefined) lines.push(`  sandbox size:  ${formatBytes(report.bytesAfter)} after the sweep`);
  lines.push(`  duration:      ${(report.durationMs / 1000).toFixed(2)} s`);
  for (const problem of report.problems) lines.push(`  problem: ${problem.path}: ${problem.code} ${problem.message}`);
  if (report.problemCount > report.problems.length) lines.push(`  … and ${formatCount(report.problemCount - report.problems.length)} more problem(s)`);
  return lines.join('\n');
}

export function describeAge(ms: number): string {
  if (ms % 86_400_000 === 0) return plural(ms / 86_400_000, 'day');
  if (ms % 3_600_000 === 0) return plural(ms / 3_600_000, 'hour');
  return plural(Math.round(ms / 60_000), 'minute');
}
