import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { openCoordinator } from '../../coordination/open-coordinator.js';
import { SpillwayError } from '../../errors.js';
import { createLogger } from '../../log/logger.js';
import { dayMs, parseDuration } from '../../retention/parse-duration.js';
import { leaseSweepLock } from '../../retention/lease-sweep-lock.js';
import { sharedExpiryLog } from '../../retention/shared-expiry-log.js';
import { sweepSandbox } from '../../retention/sweep.js';
import { formatSweepReport } from '../../retention/sweep-report.js';
import type { CliIo } from '../output.js';

export const cleanupUsage = `spillway cleanup [--dry-run] [--older-than 7d|36h] [--root DIR] [--json] [--list] [--config FILE]

Runs the retention sweep once: deletes files older than retention.days (or
--older-than) in results/, errors/, args/ and scripts/ of every conversation,
never in outputs/, then applies retention.maxBytes / maxBytesPerConversation.
In every folder, outputs/ included, it also removes what interrupted writes
left: temporary files and spill sidecars without data older than
retention.tempGraceMs, and temporary second links on published files.

  --dry-run        list exactly what would be deleted; delete nothing
  --older-than AGE a number with d, h or m: 7d, 36h, 90m (default retention.days)
  --root DIR       the sandbox root (default sandbox.root); it must hold .spillway-sandbox
  --json           print the report as one JSON line (for log pipelines)
  --list           also list the deleted paths (always on with --dry-run)
  --config FILE    configuration file (default SPILLWAY_CONFIG, then config/default.json)

Exit status: 0 done; 1 could not run (no marker, root of /, bad config);
2 bad options; 3 ran, but some files could not be deleted (see the report);
75 another sweep holds the lock (try again later).

Examples:
  spillway cleanup --dry-run
  spillway cleanup --older-than 36h --list
  spillway cleanup --json --config /etc/spillway/config.json`;

export const exitLocked = 75;
export const exitPartial = 3;

export async function cleanupCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'older-than': { type: 'string' },
      root: { type: 'string' },
      json: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      config: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  let olderThanMs: number | undefined;
  if (values['older-than'] !== undefined) {
    try {
      olderThanMs = parseDuration(values['older-than']);
    } catch (error) {
      io.err(`spillway cleanup: --older-than: ${(error as Error).message}`);
      return 2;
    }
  }
  const config = loadConfig({ file: values.config });
  const dryRun = values['dry-run'];
  // Problems go to stderr as JSON log lines; the report itself is the command's output.
  const logger = createLogger(config.log.level === 'silent' ? 'silent' : 'warn');
  // In a fleet (coordination.redis), the CLI takes the same Redis lease lock as the replicas' sweeps.
  const coordinator = await openCoordinator(config, logger);
  try {
    const report = await sweepSandbox({
      // A fleet records expiries in Redis, where every replica looks them up (PATH_EXPIRED).
      ...(coordinator === undefined
        ? {}
        : { lock: leaseSweepLock(coordinator, { leaseMs: config.coordination.sweepLeaseMs, logger }), expiryLog: sharedExpiryLog(coordinator) }),
      root: values.root ?? config.sandbox.root,
      olderThanMs: olderThanMs ?? config.retention.days * dayMs,
      tempGraceMs: config.retention.tempGraceMs,
      dryRun,
      quota: config.retention,
      listPaths: dryRun || values.list,
      logger,
    });
    if (values.json) io.out(JSON.stringify(report));
    else {
      if (report.paths !== undefined && report.paths.length > 0) io.out(report.paths.join('\n'));
      const leftovers = (report.leftoverPaths ?? []).map((leftover) => `${leftover.path} (leftover: ${leftover.kind})`);
      if (leftovers.length > 0) io.out(leftovers.join('\n'));
      io.out(formatSweepReport(report));
    }
    return report.errors.files > 0 ? exitPartial : 0;
  } catch (error) {
    if (SpillwayError.is(error) && error.code === 'RETENTION_LOCKED') {
      io.err(`spillway cleanup: ${error.message}`);
      return exitLocked;
    }
    throw error;
  } finally {
    await coordinator?.close();
    logger.flush();
  }
}

/** The verb as `spillway` runs it. */
export const command = { run: cleanupCommand, usage: cleanupUsage };
