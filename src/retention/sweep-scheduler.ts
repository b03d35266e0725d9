import cron, { type ScheduledTask } from 'node-cron';
import { SpillwayError, toSpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { SweepReport } from './sweep-report.js';

/** The last sweep as /healthz shows it. */
export interface LastSweep {
  outcome: 'ok' | 'locked' | 'failed';
  startedAt: string;
  finishedAt: string;
  durationMs?: number;
  deleted?: SweepReport['deleted'];
  kept?: SweepReport['kept'];
  skipped?: SweepReport['skipped'];
  errors?: SweepReport['errors'];
  quotaEvictions?: SweepReport['quotaEvictions'];
  message?: string;
}

export interface SweepSchedulerOptions {
  /** node-cron expression (retention.cron). */
  cron: string;
  /** Runs one sweep (reads the current configuration each time). */
  sweep: () => Promise<SweepReport>;
  logger: Logger;
  now?: () => Date;
  /** Told each time a sweep ends, whatever its outcome (metrics count sweeps from it). */
  onFinished?: (sweep: LastSweep) => void;
}

/**
 * Runs the sweep on a cron schedule with no overlap: node-cron's noOverlap
 * drops a tick while a sweep still runs, a manual run joins the one in
 * progress, and the sandbox lock keeps a CLI sweep out (a tick that finds the
 * lock taken is recorded as "locked", not as a failure).
 */
export class SweepScheduler {
  private task: ScheduledTask | undefined;
  private running: Promise<LastSweep> | undefined;
  private last: LastSweep | undefined;
  private expression: string;
  private readonly now: () => Date;

  constructor(private readonly options: SweepSchedulerOptions) {
    this.expression = options.cron;
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    if (this.task !== undefined) return;
    if (!cron.validate(this.expression)) {
      throw new SpillwayError('CONFIG_INVALID', `retention.cron: "${this.expression}" is not a valid cron expression (e.g. "0 */6 * * *")`, {
        cron: this.expression,
      });
    }
    this.task = cron.schedule(this.expression, () => this.runNow(), {
      name: 'spillway-retention',
      noOverlap: true,
      unref: true,
      logger: cronLogger(this.options.logger),
    });
    this.task.on('execution:overlap', () => this.options.logger.warn('retention sweep still running at the next scheduled time; that run is skipped'));
  }

  /** Applies a new cron expression (config reload); an invalid one keeps the old schedule. */
  reschedule(expression: string): void {
    if (expression === this.expression) return;
    if (!cron.validate(expression)) {
      this.options.logger.warn({ cron: expression }, 'retention.cron is not valid; keeping the current schedule');
      return;
    }
    const wasRunning = this.task !== undefined;
    this.stop();
    this.expression = expression;
    if (wasRunning) this.start();
    this.options.logger.info({ cron: expression }, 'retention schedule changed');
  }

  stop(): void {
    const task = this.task;
    this.task = undefined;
    if (task !== undefined) void Promise.resolve(task.destroy()).catch(() => undefined);
  }

  /** Runs a sweep now, or joins the one already running. Never throws: the outcome is recorded for /healthz. */
  runNow(): Promise<LastSweep> {
    this.running ??= this.runOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** A sweep in progress, if any (close waits for it). */
  whenIdle(): Promise<void> {
    return (this.running ?? Promise.resolve()).then(() => undefined);
  }

  health(): { schedule: string; nextRunAt: string | null; running: boolean; lastSweep: LastSweep | null } {
    const next = this.task?.getNextRun() ?? null;
    return {
      schedule: this.expression,
      nextRunAt: next === null ? null : next.toISOString(),
      running: this.running !== undefined,
      lastSweep: this.last ?? null,
    };
  }

  private async runOnce(): Promise<LastSweep> {
    const startedAt = this.now().toISOString();
    let outcome: LastSweep;
    try {
      const report = await this.options.sweep();
      outcome = {
        outcome: 'ok',
        startedAt: report.startedAt,
        finishedAt: report.finishedAt,
        durationMs: report.durationMs,
        deleted: report.deleted,
        kept: report.kept,
        skipped: report.skipped,
        errors: report.errors,
        quotaEvictions: report.quotaEvictions,
      };
    } catch (error) {
      const failure = toSpillwayError(error);
      const locked = failure.code === 'RETENTION_LOCKED';
      outcome = { outcome: locked ? 'locked' : 'failed', startedAt, finishedAt: this.now().toISOString(), message: failure.message };
      if (locked) this.options.logger.info({ reason: failure.message }, 'retention sweep skipped: another sweep holds the lock');
      else this.options.logger.error({ err: failure }, 'retention sweep failed');
    }
    this.last = outcome;
    this.options.onFinished?.(outcome);
    return outcome;
  }
}

/** node-cron logs through console by default; route it to the JSON log (stdout may be the MCP transport). */
function cronLogger(logger: Logger) {
  return {
    info: (message: string) => logger.debug({ source: 'node-cron' }, message),
    warn: (message: string) => logger.warn({ source: 'node-cron' }, message),
    error: (message: string | Error, err?: Error) =>
      logger.error({ source: 'node-cron', err: err ?? message }, typeof message === 'string' ? message : message.message),
    debug: (message: string | Error) => logger.debug({ source: 'node-cron' }, typeof message === 'string' ? message : message.message),
  };
}
