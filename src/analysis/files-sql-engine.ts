import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SpillwayError } from '../errors.js';
import { AdmissionGate, defaultQueueWaitMs, type AdmissionGateOptions } from '../util/admission-gate.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import { toObjectRows, type SqlResult } from '../sql/sql-source.js';
import { listDataFiles } from './data-files.js';
import { removeViewFolders } from './pinned-view.js';
import type { FilesSqlRequest, FilesSqlResponse, ParquetExportRequest } from './files-sql-child.js';

const childModule = fileURLToPath(new URL('./files-sql-child.js', import.meta.url));

export interface FilesQuery {
  sandbox: ConversationSandbox;
  sql: string;
  maxRows: number;
  /** Bytes of rows returned at most (analysis.maxBytes), measured in the DuckDB process; default {@link defaultMaxBytes}. */
  maxBytes?: number;
  timeoutMs: number;
  memoryBytes: number;
  threads: number;
  signal?: AbortSignal;
}

export interface FilesSqlEngineOptions {
  /** Queries running at once; more wait in line. */
  maxConcurrent: number;
  /** Queries waiting at most; more are refused (SQL_BUSY) so one conversation cannot stall the rest. */
  maxWaiting: number;
  /** Longest wait for a slot; a query still waiting is refused (SQL_BUSY). Default 30 s. */
  queueWaitMs?: number;
  /** The admission gate (a host shares its own, shown in /healthz); absent, one is made from the caps above. */
  gate?: AdmissionGate;
}

/** A forked child that has loaded DuckDB and waits for its one query. */
interface Child {
  process: ChildProcess;
  ready: Promise<void>;
  exited: boolean;
  /** The length of the JSON file its warm-up read beyond its rows. */
  warmUpBytes: number;
}

const filesNamed = 12;

/** analysis.maxBytes's default, for callers (chart rows, inspect_file) that bound rows by count. */
export const defaultMaxBytes = 16 * 1024 * 1024;

/** The query_files queue: refusals keep their SQL_BUSY code and name the analysis.* caps. */
export function filesSqlGateOptions(caps: () => { maxConcurrent: number; maxWaiting: number; queueWaitMs: number }): AdmissionGateOptions {
  return {
    name: 'query_files',
    noun: 'file query',
    code: 'SQL_BUSY',
    keys: 'analysis.maxConcurrent, analysis.maxWaiting',
    limits: () => {
      const { maxConcurrent, maxWaiting, queueWaitMs } = caps();
      return { running: maxConcurrent, waiting: maxWaiting, waitMs: queueWaitMs };
    },
  };
}

/** A refused file names the files that can be queried, so the next try can be right. */
function withFileList(error: unknown, sandbox: ConversationSandbox, allowedPaths: string[]): unknown {
  if (!SpillwayError.is(error) || error.code !== 'SQL_FILE_REFUSED') return error;
  const names = allowedPaths.map((file) => sandbox.relativeOf(file));
  const shown = names.slice(-filesNamed).join(', ');
  const list =
    names.length === 0
      ? ' This conversation has no data files yet.'
      : ` Files you can query${names.length > filesNamed ? ` (the last ${filesNamed} of ${names.length})` : ''}: ${shown}.`;
  return new SpillwayError(error.code, `${error.message}${list}`, { ...error.details, files: names.slice(-filesNamed) });
}

function memoryLimitMb(bytes: number): number {
  return Math.max(16, Math.floor(bytes / 1024 / 1024));
}

/** The most a spare's warm-up reads beyond its rows: DuckDB's JSON read buffers stop growing there (~32 MiB). */
export const maxWarmUpBytes = 34 * 1024 * 1024;

/**
 * A child whose warm-up reads a JSON file as long as `largestBytes` (at most maxWarmUpBytes;
 * see warmUp in files-sql-child.ts): the size of the files the next query will likely read, so
 * their read buffers are paged in before the call rather than during it.
 */
function spawnChild(largestBytes: number): Child {
  const warmUpBytes = Math.min(maxWarmUpBytes, Math.max(0, Math.floor(largestBytes)));
  const process = fork(childModule, [String(warmUpBytes)], {
    // Never inherit --test or inspector flags; never write to the parent's stdout (the MCP stdio transport).
    execArgv: [],
    serialization: 'json',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    // DuckDB's Node calls run on libuv's pool; with one pool thread they all allocate from one
    // malloc arena, which the warm-up has already paged in (measured: a first 1M-row query
    // 0.42 s with four pool threads, 0.28-0.29 s with one and the warm-up).
    env: { ...globalThis.process.env, UV_THREADPOOL_SIZE: '1' },
  });
  const child: Child = { process, exited: false, ready: Promise.resolve(), warmUpBytes };
  child.ready = new Promise<void>((resolve, reject) => {
    process.once('message', (message: FilesSqlResponse) => (message.type === 'ready' ? resolve() : reject(new Error(`unexpected ${message.type}`))));
    process.once('exit', () => reject(new SpillwayError('INTERNAL', 'The DuckDB query process stopped before it was ready; run the query again.')));
    process.once('error', (error) => reject(new SpillwayError('INTERNAL', `Cannot start the DuckDB query process: ${error.message}`)));
  });
  child.ready.catch(() => undefined);
  const pid = process.pid;
  process.once('exit', () => {
    child.exited = true;
    // The child is killed once it has answered (or at its deadline), maybe before it removed its
    // view of the files (names of its descriptors): whatever is left goes here.
    if (pid !== undefined) removeViewFolders(pid);
  });
  // A spare child waiting for work must not keep the host alive.
  process.unref();
  process.channel?.unref();
  return child;
}

/**
 * Runs query_files statements, each in its own child process with DuckDB
 * locked to the conversation's files. One spare child is kept loaded so a
 * query does not wait for DuckDB to load; a query past its deadline, or whose
 * call is cancelled, has its child killed.
 */
export class FilesSqlEngine {
  private spare: Child | undefined;
  private closed = false;
  /** The largest data file the last query could read: what the next spare warms up for. */
  private lastLargestBytes = 0;
  readonly gate: AdmissionGate;

  constructor(options: FilesSqlEngineOptions) {
    this.gate = options.gate ?? new AdmissionGate(filesSqlGateOptions(() => ({ ...options, queueWaitMs: options.queueWaitMs ?? defaultQueueWaitMs })));
  }

  async query(query: FilesQuery): Promise<SqlResult> {
    if (this.closed) throw new SpillwayError('INTERNAL', 'The host is closing.');
    const release = await this.gate.admit(query.signal === undefined ? {} : { signal: query.signal });
    try {
      const { paths: allowedPaths, largestBytes } = await listDataFiles(query.sandbox);
      this.lastLargestBytes = largestBytes;
      const request: FilesSqlRequest = {
        type: 'run',
        cwd: query.sandbox.dir,
        sql: query.sql,
        allowedPaths,
        maxRows: query.maxRows,
        maxBytes: query.maxBytes ?? defaultMaxBytes,
        memoryLimitMb: memoryLimitMb(query.memoryBytes),
        threads: query.threads,
        root: query.sandbox.root,
      };
      const answer = await this.runIn(this.takeChild(), request, query).catch((error: unknown) => {
        throw withFileList(error, query.sandbox, allowedPaths);
      });
      if (answer.type !== 'result') throw new SpillwayError('INTERNAL', `Unexpected answer from the DuckDB query process: ${answer.type}`);
      return toObjectRows(answer.result);
    } finally {
      release();
      this.refillSpare();
    }
  }

  /**
   * Writes a Parquet file from spillway's own SELECT over one source file;
   * DuckDB may touch only that source and the output path. Returns the rows written.
   */
  async exportParquet(options: {
    sandbox: ConversationSandbox;
    select: string;
    source: string;
    output: string;
    timeoutMs: number;
    memoryBytes: number;
    threads: number;
    signal?: AbortSignal;
  }): Promise<number> {
    if (this.closed) throw new SpillwayError('INTERNAL', 'The host is closing.');
    const release = await this.gate.admit(options.signal === undefined ? {} : { signal: options.signal });
    try {
      const request: ParquetExportRequest = {
        type: 'export',
        cwd: options.sandbox.dir,
        select: options.select,
        allowedPaths: [options.source, options.output],
        output: options.output,
        memoryLimitMb: memoryLimitMb(options.memoryBytes),
        threads: options.threads,
        root: options.sandbox.root,
      };
      const answer = await this.runIn(this.takeChild(), request, options);
      if (answer.type !== 'exported') throw new SpillwayError('INTERNAL', `Unexpected answer from the DuckDB query process: ${answer.type}`);
      return answer.rows;
    } finally {
      release();
      this.refillSpare();
    }
  }

  /**
   * Loads DuckDB in a spare child now, so the first query does not wait for it
   * (a served host calls this once its banner is out). Resolves when the
   * spare is ready; never rejects (a spare that failed is replaced on use).
   */
  prepare(): Promise<void> {
    this.refillSpare();
    const spare = this.spare;
    if (spare === undefined) return Promise.resolve();
    // Held until loaded, so the caller's await has something to wait on; then unref'd again like every spare.
    spare.process.ref();
    return spare.ready.catch(() => undefined).finally(() => spare.process.unref());
  }

  /** Whether a spare child is forked (loading DuckDB or loaded) for the next query. */
  hasSpare(): boolean {
    return this.spare !== undefined && !this.spare.exited;
  }

  /** How long a JSON file the spare's warm-up read beyond its rows (undefined: no spare). */
  spareWarmUpBytes(): number | undefined {
    return this.hasSpare() ? this.spare?.warmUpBytes : undefined;
  }

  private takeChild(): Child {
    // A child forked for this very call warms up without padding: the call would wait for it.
    const child = this.spare !== undefined && !this.spare.exited ? this.spare : spawnChild(0);
    this.spare = undefined;
    return child;
  }

  /**
   * Forks the next spare once a query is done, not while it runs: loading
   * DuckDB takes a core for a moment, which a running query should keep.
   */
  private refillSpare(): void {
    if (!this.closed && (this.spare === undefined || this.spare.exited)) this.spare = spawnChild(this.lastLargestBytes);
  }

  private runIn(child: Child, request: FilesSqlRequest | ParquetExportRequest, query: { timeoutMs: number; signal?: AbortSignal }) {
    return new Promise<Exclude<FilesSqlResponse, { type: 'ready' | 'error' }>>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | undefined, result?: Exclude<FilesSqlResponse, { type: 'ready' | 'error' }>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        query.signal?.removeEventListener('abort', onAbort);
        if (!child.exited) child.process.kill('SIGKILL');
        if (error !== undefined) reject(error);
        else resolve(result as Exclude<FilesSqlResponse, { type: 'ready' | 'error' }>);
      };
      let timer: NodeJS.Timeout | undefined;
      // The deadline starts once the child has DuckDB loaded: loading is not the query's time.
      const startDeadline = () =>
        (timer = setTimeout(() => {
          finish(
            new SpillwayError(
              'SQL_TIMEOUT',
              `The query ran longer than analysis.timeoutMs (${query.timeoutMs} ms) and was stopped. Aggregate or filter earlier, or join on fewer rows.`,
              {
                limit: 'analysis.timeoutMs',
                value: query.timeoutMs,
              },
            ),
          );
        }, query.timeoutMs));
      const onAbort = () => finish(new SpillwayError('TOOL_FAILED', 'The call was cancelled; the query was stopped.'));
      if (query.signal?.aborted) return onAbort();
      query.signal?.addEventListener('abort', onAbort, { once: true });
      // Running: the child keeps the host alive until it answers.
      child.process.ref();
      child.process.channel?.ref();
      child.process.on('message', (message: FilesSqlResponse) => {
        if (message.type === 'error') finish(SpillwayError.fromJSON(message.error));
        else if (message.type !== 'ready') finish(undefined, message);
      });
      child.process.once('exit', (code, signal) => {
        finish(
          signal === 'SIGKILL' || signal === 'SIGABRT'
            ? new SpillwayError('SQL_LIMIT', `The DuckDB query process was stopped (${signal}), most likely out of memory; aggregate or filter earlier.`, {
                limit: 'analysis.memoryBytes',
                signal,
              })
            : new SpillwayError('INTERNAL', `The DuckDB query process exited (${signal ?? `code ${code}`}) without an answer; run the query again.`, {
                exitCode: code,
                signal,
              }),
        );
      });
      child.ready.then(
        () => {
          if (settled) return;
          startDeadline();
          child.process.send(request);
        },
        (error: Error) => finish(error),
      );
    });
  }

  /** Stops the spare child; running queries finish or hit their deadline. */
  close(): void {
    this.closed = true;
    if (this.spare !== undefined && !this.spare.exited) this.spare.process.kill('SIGKILL');
    this.spare = undefined;
  }
}
