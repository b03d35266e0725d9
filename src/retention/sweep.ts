import { SpillwayError } from '../errors.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { applyPlan } from './apply-plan.js';
import { checkSweepRoot } from './check-sweep-root.js';
import { listConversations, measureSandbox } from './disk-usage.js';
import { planConversation, type ConversationPlan } from './plan-conversation.js';
import { chooseEvictions, evictFiles, hasQuota, type QuotaLimits } from './quota.js';
import type { ExpiryLog } from './expired-log.js';
import { Pacer } from '../util/pacer.js';
import { recoverConversation } from './recover-leftovers.js';
import type { SweepLockTaker } from './lease-sweep-lock.js';
import { acquireSweepLock } from './sweep-lock.js';
import { addTo, emptyTally, type SweepProblem, type SweepReport, type Tally } from './sweep-report.js';

export interface SweepOptions {
  /** The sandbox root; it must hold the .spillway-sandbox marker. */
  root: string;
  /** Files last modified longer ago than this go (retention.days × 1 day, or --older-than). */
  olderThanMs: number;
  /** List what would go; delete nothing, write nothing. */
  dryRun?: boolean;
  /** Clock, injectable so tests need not wait a week. */
  now?: () => Date;
  logger?: Logger;
  /** Disk quota enforced after the age pass (0 = none). */
  quota?: QuotaLimits;
  /** Put every removed (or, dry, removable) path in the report. */
  listPaths?: boolean;
  /** Takes the sweep lock; default the pid file lock in the root (a fleet passes the Redis lease lock). */
  lock?: SweepLockTaker;
  /** Temporary files and sidecars without data older than this are crash leftovers (retention.tempGraceMs). */
  tempGraceMs?: number;
  /** Where removed files are recorded before they go; default each conversation's .expired.jsonl (a fleet passes its shared log). */
  expiryLog?: ExpiryLog;
  /** Called after a conversation is planned and before anything in it is removed (progress; tests race the sweep here). */
  onPlanned?: (plan: ConversationPlan) => void | Promise<void>;
  /** Called with each path removed (`<principal>/<conversation>/<relative>`, folders end in "/"): a serving host announces them to resource subscribers. */
  onRemoved?: (path: string) => void;
}

const maxProblemsReported = 100;

/** The default of retention.tempGraceMs: a write in progress keeps its temporary file younger than this. */
export const defaultTempGraceMs = 10 * 60_000;

/**
 * The retention sweep. Deletes files older than `olderThanMs` in results/,
 * errors/, args/ and scripts/ of every conversation (never outputs/), with
 * their metadata sidecars and the sub-folders they leave empty; records them
 * in each conversation's .expired.jsonl; then, when a quota is set, evicts the
 * oldest remaining non-output files until the sandbox fits.
 *
 * Refuses a root without the marker file and a filesystem root; takes the
 * sandbox's sweep lock (RETENTION_LOCKED when another sweep runs); never
 * follows a symlink; skips, without error, a file that vanished or changed
 * while the sweep ran.
 *
 * @example
 * const report = await sweepSandbox({ root: '/var/lib/spillway/sandbox', olderThanMs: 7 * 86_400_000 });
 * report.deleted; // { files: 5210, bytes: 86_000_000 }
 */
export async function sweepSandbox(options: SweepOptions): Promise<SweepReport> {
  if (!Number.isFinite(options.olderThanMs) || options.olderThanMs <= 0) {
    throw new SpillwayError(
      'INVALID_ARGUMENTS',
      `The retention age must be a positive duration (got ${options.olderThanMs} ms); a sweep with no age would delete everything.`,
      {
        olderThanMs: options.olderThanMs,
      },
    );
  }
  const clock = options.now ?? (() => new Date());
  const logger = options.logger ?? silentLogger();
  const pacer = new Pacer();
  const dryRun = options.dryRun === true;
  const root = await checkSweepRoot(options.root);
  const lock = options.lock === undefined ? await acquireSweepLock(root, clock) : await options.lock(root);
  const started = clock();
  const startedAt = performance.now();
  const cutoffMs = started.getTime() - options.olderThanMs;
  // "expired on …" answers outlive the files by a few retention periods, then the log forgets them.
  const expiredLogKeepMs = Math.max(4 * options.olderThanMs, 30 * 86_400_000);
  const expiryLog = options.expiryLog === undefined ? {} : { expiryLog: options.expiryLog };

  const report: SweepReport = {
    root,
    dryRun,
    startedAt: started.toISOString(),
    finishedAt: started.toISOString(),
    durationMs: 0,
    cutoff: new Date(cutoffMs).toISOString(),
    olderThanMs: options.olderThanMs,
    conversations: 0,
    scanned: emptyTally(),
    deleted: emptyTally(),
    kept: emptyTally(),
    skipped: emptyTally(),
    errors: emptyTally(),
    foldersRemoved: 0,
    conversationsRemoved: 0,
    quotaEvictions: emptyTally(),
    leftovers: { removed: emptyTally(), linksRepaired: 0 },
    problems: [],
    problemCount: 0,
  };
  const paths: string[] | undefined = options.listPaths ? [] : undefined;
  const leftoverPaths: { path: string; kind: string }[] | undefined = options.listPaths ? [] : undefined;
  const recoverLeftovers = async (id: string, dir: string, plan: ConversationPlan) => {
    // What the age pass already removes (or, dry, would) is not counted twice.
    const planned = new Set(plan.files.flatMap((file) => [file.relative, ...(file.sidecar === undefined ? [] : [file.sidecar.relative])]));
    const found = await recoverConversation({
      dir,
      graceMs: options.tempGraceMs ?? defaultTempGraceMs,
      nowMs: started.getTime(),
      dryRun,
      pacer,
      skip: planned,
    });
    addTo(report.leftovers.removed, found.removed.bytes, found.removed.files);
    report.leftovers.linksRepaired += found.linksRepaired;
    addProblems(found.problems.map((problem) => ({ ...problem, path: `${id}/${problem.path}` })));
    for (const leftover of found.leftovers) leftoverPaths?.push({ path: `${id}/${leftover.path}`, kind: leftover.kind });
  };
  // A dry run deletes nothing, so the quota pass must not count (or choose) what the age pass would remove.
  const wouldGo = dryRun && hasQuota(options.quota) ? new Set<string>() : undefined;
  const addProblems = (problems: readonly SweepProblem[]) => {
    report.problemCount += problems.length;
    for (const problem of problems) if (report.problems.length < maxProblemsReported) report.problems.push(problem);
  };
  const merge = (into: Tally, from: Tally) => addTo(into, from.bytes, from.files);

  try {
    for (const id of await listConversations(root)) {
      report.conversations += 1;
      const plan = await planConversation({ root, id, cutoffMs, pacer });
      await options.onPlanned?.(plan);
      merge(report.scanned, plan.scanned);
      merge(report.kept, plan.kept);
      merge(report.skipped, plan.skipped);
      merge(report.errors, plan.errors);
      addProblems(plan.problems);
      if (dryRun) {
        for (const file of plan.files) {
          wouldGo?.add(file.absolute);
          addTo(report.deleted, file.size);
          paths?.push(`${id}/${file.relative}`);
          if (file.sidecar !== undefined) {
            addTo(report.deleted, file.sidecar.size);
            paths?.push(`${id}/${file.sidecar.relative}`);
          }
        }
        report.foldersRemoved += plan.folders.length;
        for (const folder of plan.folders) paths?.push(`${id}/${folder}/`);
        if (plan.removeConversation) {
          report.conversationsRemoved += 1;
          paths?.push(`${id}/`);
        }
        await recoverLeftovers(id, plan.dir, plan);
        continue;
      }
      const applied = await applyPlan(plan, { now: started, expiredLogKeepMs, pacer, ...expiryLog });
      // Then what crashes left, in every folder (outputs/ too), younger than the retention but past the grace period.
      await recoverLeftovers(id, plan.dir, plan);
      merge(report.deleted, applied.deleted);
      merge(report.skipped, applied.skipped);
      merge(report.errors, applied.errors);
      report.foldersRemoved += applied.foldersRemoved;
      if (applied.conversationRemoved) {
        report.conversationsRemoved += 1;
        applied.removed.push('');
      }
      addProblems(applied.problems);
      if (paths !== undefined) for (const relative of applied.removed) paths.push(`${id}/${relative}`);
      if (options.onRemoved !== undefined) for (const relative of applied.removed) options.onRemoved(`${id}/${relative}`);
    }

    if (hasQuota(options.quota)) {
      const usage = await measureSandbox(root, { withFiles: true, nowMs: started.getTime() });
      if (wouldGo !== undefined) {
        for (const conversation of usage.conversations.values()) {
          const gone = conversation.evictable.filter((file) => wouldGo.has(file.absolute));
          const goneBytes = gone.reduce((sum, file) => sum + file.unitBytes, 0);
          conversation.bytes -= goneBytes;
          usage.bytes -= goneBytes;
          conversation.evictable = conversation.evictable.filter((file) => !wouldGo.has(file.absolute));
        }
      }
      const choice = chooseEvictions(usage, options.quota);
      if (dryRun) {
        for (const file of choice.files) {
          addTo(report.quotaEvictions, file.unitBytes, file.sidecar === undefined ? 1 : 2);
          paths?.push(`${file.conversationId}/${file.relative}`);
          if (file.sidecar !== undefined) paths?.push(`${file.conversationId}/${file.relative}.meta.json`);
        }
        report.bytesAfter = choice.bytesAfter;
      } else {
        const evicted = await evictFiles(root, choice.files, { now: started, expiredLogKeepMs, ...expiryLog });
        merge(report.quotaEvictions, evicted.evicted);
        report.bytesAfter = usage.bytes - evicted.evicted.bytes;
        addProblems(evicted.problems);
        paths?.push(...evicted.removed);
        if (options.onRemoved !== undefined) for (const removed of evicted.removed) options.onRemoved(removed);
      }
      // Evicted files were counted as kept by the age pass; they went after all.
      merge(report.deleted, report.quotaEvictions);
      report.kept.files -= report.quotaEvictions.files;
      report.kept.bytes -= report.quotaEvictions.bytes;
    }
  } finally {
    await lock.release();
  }

  report.finishedAt = clock().toISOString();
  report.durationMs = Math.round((performance.now() - startedAt) * 10) / 10;
  if (paths !== undefined) report.paths = paths;
  if (leftoverPaths !== undefined) report.leftoverPaths = leftoverPaths;
  const { problems, paths: _paths, leftoverPaths: _leftoverPaths, ...summary } = report;
  logger.info(summary, dryRun ? 'retention dry run finished' : 'retention sweep finished');
  if (problems.length > 0) logger.warn({ problems, problemCount: report.problemCount }, 'retention sweep problems');
  return report;
}
