import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { formatCount } from '../util/format.js';
import { TurnQueue } from '../util/turn-queue.js';
import type { ChildRequest, ChildResponse } from './sqlite-query-child.js';
import { toObjectRows, type SqlQuery, type SqlResult, type SqlSource, type SqlSourceKind } from './sql-source.js';

const childModule = fileURLToPath(new URL('./sqlite-query-child.js', import.meta.url));

export interface SqliteSourceOptions {
  file: string;
  kind: Extract<SqlSourceKind, 'demo' | 'sqlite'>;
  logger?: Logger;
  /** Queries running at once; more wait their turn. Default 2. */
  maxConcurrent?: number;
  /**
   * Tests only: skip the text checks so the database's own refusal can be
   * shown on its own. The read-only connection and statement verdicts stay.
   */
  statementChecks?: boolean;
}

/** Heap of the query child (MiB): a few times sql.maxBytes' default of 64 MiB, as rows are held as objects and as JSON. */
const childHeapMb = 1024;

/** One child process with the database open read-only. */
class QueryChild {
  private readonly process: ChildProcess;
  private nextId = 1;
  private pending: { id: number; resolve: (message: ChildResponse) => void; reject: (error: Error) => void } | undefined;
  readonly ready: Promise<void>;
  exited = false;

  /** What to do when the process ends; a spare adopted by a source gets the source's. */
  onExit: (child: QueryChild) => void;

  constructor(file: string, onExit: (child: QueryChild) => void) {
    this.onExit = onExit;
    this.process = fork(childModule, [], {
      // Never inherit --test or inspector flags from the parent; never write to its stdout (the MCP stdio transport).
      // The heap cap contains a query whose rows outgrow sql.maxBytes' checks: this child dies, the host goes on.
      execArgv: [`--max-old-space-size=${childHeapMb}`],
      // JSON, not 'advanced': the child already made every value JSON-safe, and V8's serializer measured slower for row arrays.
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: ChildResponse) => {
        if (message.type === 'opened') resolve();
        else if (message.type === 'open-failed') reject(SpillwayError.fromJSON(message.error));
        else this.settle(message);
      };
      this.process.on('message', onMessage);
      this.process.once('exit', (code, signal) => {
        this.exited = true;
        const outOfMemory = signal === 'SIGABRT' || signal === 'SIGKILL';
        const reason = outOfMemory ? `${signal}: most likely out of memory, its heap is capped at ${childHeapMb} MiB` : (signal ?? `exit code ${code}`);
        const error = new SpillwayError(
          'SQL_SOURCE_UNAVAILABLE',
          `The SQLite query process stopped (${reason}); run the query again${outOfMemory ? ', asking for fewer or narrower rows' : ''}.`,
          {
            exitCode: code,
            signal,
          },
        );
        reject(error);
        this.pending?.reject(error);
        this.pending = undefined;
        this.onExit(this);
      });
      this.process.once('error', (error) => reject(new SpillwayError('SQL_SOURCE_UNAVAILABLE', `Cannot start the SQLite query process: ${error.message}`)));
    });
    this.ready.catch(() => undefined);
    this.post({ type: 'open', file });
  }

  private post(message: ChildRequest): void {
    this.process.send(message);
  }

  private settle(message: ChildResponse): void {
    const pending = this.pending;
    if (pending === undefined || !('id' in message) || message.id !== pending.id) return;
    this.pending = undefined;
    if (message.type === 'error') pending.reject(SpillwayError.fromJSON(message.error));
    else pending.resolve(message);
  }

  private request(message: Extract<ChildRequest, { id: number }>): Promise<ChildResponse> {
    return new Promise<ChildResponse>((resolve, reject) => {
      this.pending = { id: message.id, resolve, reject };
      this.post(message);
    });
  }

  /** The rows; `countPending` when the limit was hit and the total is still to be counted. */
  async run(sql: string, maxRows: number, statementChecks: boolean, maxBytes?: number): Promise<{ result: SqlResult; countPending: boolean }> {
    const answer = await this.request({ type: 'query', id: this.nextId++, sql, maxRows, statementChecks, ...(maxBytes === undefined ? {} : { maxBytes }) });
    if (answer.type !== 'result') throw new SpillwayError('INTERNAL', `Unexpected answer from the SQLite query process: ${answer.type}`);
    return { result: toObjectRows(answer.result), countPending: answer.countPending };
  }

  /** The total for the last result, counted over the whole match in its read transaction. */
  async count(): Promise<number> {
    const answer = await this.request({ type: 'count', id: this.nextId++ });
    if (answer.type !== 'counted') throw new SpillwayError('INTERNAL', `Unexpected answer from the SQLite query process: ${answer.type}`);
    return answer.total;
  }

  /** An idle child must not keep the host's process alive. */
  setIdle(idle: boolean): void {
    if (idle) {
      this.process.unref();
      this.process.channel?.unref();
    } else {
      this.process.ref();
      this.process.channel?.ref();
    }
  }

  kill(): void {
    if (this.exited) return;
    this.process.kill('SIGKILL');
    // Unusable from now on, even before its exit event arrives.
    this.exited = true;
  }

  /** Closes the database and lets the child exit on its own. */
  release(): void {
    if (!this.exited && this.process.connected) this.process.disconnect();
  }
}

/**
 * Children forked before their source exists, by database file: a one-shot
 * `spillway call query_sql` forks one while the host's modules load, so the
 * child's own start (~0.1 s: a Node process, better-sqlite3, the open) runs
 * beside the parent's instead of after it. The first source for that file
 * adopts it; an unused spare is unreferenced and ends with the process.
 */
const spares = new Map<string, QueryChild>();

export function forkSpareQueryChild(file: string): void {
  if (spares.has(file)) return;
  const child = new QueryChild(file, (gone) => {
    if (spares.get(file) === gone) spares.delete(file);
  });
  child.setIdle(true);
  spares.set(file, child);
}

/** Drops the spare for `file` (the file was just rebuilt: the spare may hold the old one open). */
export function discardSpareQueryChild(file: string): void {
  const spare = spares.get(file);
  spares.delete(file);
  spare?.kill();
}

function adoptSpare(file: string): QueryChild | undefined {
  const spare = spares.get(file);
  spares.delete(file);
  return spare === undefined || spare.exited ? undefined : spare;
}

/**
 * A SQLite database read through child processes that open it read-only.
 * One idle child is kept warm; a query that passes the timeout (or whose
 * call is cancelled) has its child killed, which interrupts SQLite at once.
 */
export class SqliteSource implements SqlSource {
  readonly kind: Extract<SqlSourceKind, 'demo' | 'sqlite'>;
  readonly dialect = 'SQLite' as const;
  readonly description: string;
  private readonly file: string;
  private readonly logger: Logger | undefined;
  private readonly statementChecks: boolean;
  private idle: QueryChild | undefined;
  private readonly turns: TurnQueue;
  private readonly live = new Set<QueryChild>();
  private closed = false;

  constructor(options: SqliteSourceOptions) {
    this.file = options.file;
    this.kind = options.kind;
    this.logger = options.logger;
    this.turns = new TurnQueue(options.maxConcurrent ?? 2);
    this.statementChecks = options.statementChecks ?? true;
    this.description = `${options.kind === 'demo' ? 'demo SQLite database' : 'SQLite database'} ${options.file} (read-only)`;
  }

  /** Opens the database once, so a missing or damaged file is reported before the first query. */
  async check(): Promise<void> {
    const child = this.takeChild();
    try {
      await child.ready;
      this.giveBack(child);
    } catch (error) {
      child.kill();
      throw error;
    }
  }

  async query(query: SqlQuery): Promise<SqlResult> {
    if (this.closed) throw new SpillwayError('SQL_SOURCE_UNAVAILABLE', 'The SQL source is closed (the host is shutting down).');
    const endTurn = await this.turns.take(
      query.signal,
      () => new SpillwayError('SQL_TIMEOUT', 'The query was cancelled while waiting for a free query slot.', { cancelled: true }),
    );
    const child = this.takeChild();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await child.ready;
      const interrupted = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill();
          reject(
            new SpillwayError(
              'SQL_TIMEOUT',
              `The query ran longer than ${formatCount(query.timeoutMs)} ms (sql.timeoutMs) and was interrupted. Narrow it (a WHERE on indexed columns such as id, ts, account_id or label; fewer joins; an aggregate) and run it again.`,
              { timeoutMs: query.timeoutMs },
            ),
          );
        }, query.timeoutMs);
        onAbort = () => {
          child.kill();
          reject(new SpillwayError('SQL_TIMEOUT', 'The query was cancelled by the caller and interrupted.', { cancelled: true }));
        };
        if (query.signal?.aborted === true) onAbort();
        else query.signal?.addEventListener('abort', onAbort, { once: true });
      });
      const { result, countPending } = await Promise.race([child.run(query.sql, query.maxRows, this.statementChecks, query.maxBytes), interrupted]);
      if (countPending) {
        try {
          result.total = await Promise.race([child.count(), interrupted]);
        } catch (error) {
          // The rows are here; only the count ran out of time. Say so rather than lose the rows.
          if (!SpillwayError.is(error) || error.code !== 'SQL_TIMEOUT' || error.details?.cancelled === true) throw error;
          result.total = null;
          result.notes.push(
            `More rows match, but counting all of them took longer than ${formatCount(query.timeoutMs)} ms (sql.timeoutMs), so the total is unknown.`,
          );
        }
      }
      this.giveBack(child);
      return result;
    } catch (error) {
      if (!SpillwayError.is(error) || error.code === 'SQL_TIMEOUT' || error.code === 'SQL_SOURCE_UNAVAILABLE') child.kill();
      else this.giveBack(child);
      throw error;
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) query.signal?.removeEventListener('abort', onAbort);
      endTurn();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const child of this.live) child.kill();
    this.live.clear();
    this.idle = undefined;
  }

  private takeChild(): QueryChild {
    const idle = this.idle;
    this.idle = undefined;
    if (idle !== undefined && !idle.exited) {
      idle.setIdle(false);
      return idle;
    }
    const onExit = (gone: QueryChild) => {
      this.live.delete(gone);
      if (this.idle === gone) this.idle = undefined;
    };
    const spare = adoptSpare(this.file);
    if (spare !== undefined) {
      spare.onExit = onExit;
      spare.setIdle(false);
      this.live.add(spare);
      return spare;
    }
    const child = new QueryChild(this.file, onExit);
    this.live.add(child);
    this.logger?.debug({ file: this.file }, 'started a SQLite query process');
    return child;
  }

  private giveBack(child: QueryChild): void {
    if (child.exited) return;
    if (this.closed || this.idle !== undefined) {
      child.release();
      this.live.delete(child);
      return;
    }
    child.setIdle(true);
    this.idle = child;
  }
}
