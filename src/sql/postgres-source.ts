import pg from 'pg';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { formatCount } from '../util/format.js';
import { redactUrl } from '../util/redact-url.js';
import { databaseError } from './sql-error.js';
import { rowsWithinBytes } from './row-bytes.js';
import { jsonSafeValue, toObjectRows, type SqlQuery, type SqlResult, type SqlSource } from './sql-source.js';
import { checkReadOnlyStatement } from './statement-check.js';

export interface PostgresSourceOptions {
  url: string;
  logger?: Logger;
  /** Connections at most. Default 4. */
  maxConnections?: number;
  /** How long to wait for the server to answer a connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** Tests only: skip the text checks so the read-only transaction's own refusal can be shown. */
  statementChecks?: boolean;
}

/** Read through a function: the signal can change between awaits, which narrowing does not see. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function cancelled(): SpillwayError {
  return new SpillwayError('SQL_TIMEOUT', 'The query was cancelled by the caller and interrupted.', { cancelled: true });
}

/** Commands whose result is rows to read. */
const readingCommands = new Set(['SELECT', 'SHOW', 'EXPLAIN', 'VALUES', 'TABLE']);

const wrapperPrefix = 'SELECT * FROM (\n';

/**
 * PostgreSQL through `pg`. Every query runs in its own
 * `REPEATABLE READ READ ONLY` transaction with a `statement_timeout`, so the
 * server refuses writes and stops long statements itself (no startup
 * options are sent, so poolers such as PgBouncer work). The rows query is wrapped with a LIMIT, and when the
 * limit is hit a COUNT over the same statement in the same snapshot gives the
 * true total.
 */
export class PostgresSource implements SqlSource {
  readonly kind = 'postgres' as const;
  readonly dialect = 'PostgreSQL' as const;
  readonly description: string;
  private readonly pool: pg.Pool;
  private readonly statementChecks: boolean;
  private readonly connectTimeoutMs: number;

  constructor(options: PostgresSourceOptions) {
    this.description = `PostgreSQL ${redactUrl(options.url)} (read-only transactions)`;
    this.statementChecks = options.statementChecks ?? true;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 4,
      connectionTimeoutMillis: this.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      application_name: 'spillway query_sql',
    });
    this.pool.on('error', (error) => options.logger?.warn({ err: error }, 'idle PostgreSQL connection failed'));
  }

  async query(query: SqlQuery): Promise<SqlResult> {
    const checked = this.statementChecks ? checkReadOnlyStatement(query.sql, 'postgres') : { body: query.sql, wrappable: false };
    if (query.signal?.aborted === true) throw cancelled();
    const client = await this.connect();
    let broken = false;
    const onAbort = () => {
      // Cancels the running statement on the server; the transaction then fails and is rolled back.
      broken = true;
      client.release(true);
    };
    query.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(query.timeoutMs))}`);
      const limit = query.maxRows + 1;
      const text = checked.wrappable ? `${wrapperPrefix}${checked.body}\n) AS spillway_query LIMIT ${limit}` : checked.body;
      const offset = checked.wrappable ? wrapperPrefix.length : 0;
      // Extended protocol: the server accepts exactly one statement.
      const result = await this.run(client, { text, values: [], rowMode: 'array', queryMode: 'extended' }, query, offset);
      if (!readingCommands.has(result.command)) {
        // The transaction is rolled back below, so even a SET does not outlive this call.
        throw new SpillwayError(
          'SQL_READ_ONLY',
          `query_sql only reads: PostgreSQL ran this as a ${result.command} command, not a query; it was rolled back. Send a SELECT statement.`,
          {
            command: result.command,
          },
        );
      }
      const names = result.fields.map((field) => field.name);
      const blobColumns = new Set<number>();
      let bigIntegers = false;
      const limited = result.rows.length > query.maxRows;
      const converted = (result.rows as unknown[][]).slice(0, query.maxRows).map((values) =>
        values.map((value, index) =>
          jsonSafeValue(
            value,
            () => blobColumns.add(index),
            () => (bigIntegers = true),
          ),
        ),
      );
      // sql.maxBytes: the rows already arrived (PostgreSQL has no query child), but no more than the cap travels on.
      const { rows, cut: cutByBytes } = rowsWithinBytes(converted, names, query.maxBytes);
      let total: number | null = result.rows.length;
      const notes: string[] = [];
      if (limited && checked.wrappable) {
        try {
          const counted = await this.run(
            client,
            { text: `SELECT count(*) AS total FROM (\n${checked.body}\n) AS spillway_query`, values: [], queryMode: 'extended' },
            query,
            'SELECT count(*) AS total FROM (\n'.length,
          );
          total = Number((counted.rows[0] as { total: string } | undefined)?.total ?? total);
        } catch (error) {
          // The rows are here; only the count ran out of time. Say so rather than lose the rows.
          if (!SpillwayError.is(error) || error.code !== 'SQL_TIMEOUT' || isAborted(query.signal)) throw error;
          total = null;
          notes.push(`More rows match, but counting all of them took longer than ${formatCount(query.timeoutMs)} ms (sql.timeoutMs), so the total is unknown.`);
        }
      }
      await client.query('ROLLBACK');
      if (bigIntegers) notes.push('Some integers are larger than JSON numbers hold exactly; they are given as decimal strings.');
      const stringTyped = result.fields.filter((field) => field.dataTypeID === 20 || field.dataTypeID === 1700).map((field) => `"${field.name}"`);
      if (stringTyped.length > 0)
        notes.push(`bigint and numeric values (${stringTyped.slice(0, 10).join(', ')}) are given as decimal strings, so no digit is lost.`);
      return toObjectRows({
        columns: names,
        rows,
        total,
        blobColumns: [...blobColumns].map((index) => names[index] as string),
        notes,
        ...(cutByBytes && query.maxBytes !== undefined ? { cutAtBytes: query.maxBytes } : {}),
      });
    } catch (error) {
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      query.signal?.removeEventListener('abort', onAbort);
      if (!broken) client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      const reason = (error as Error).message || (error as { code?: string }).code || 'no answer';
      throw new SpillwayError(
        'SQL_SOURCE_UNAVAILABLE',
        `PostgreSQL at ${redactUrl(this.pool.options.connectionString ?? '')} did not accept a connection within ${formatCount(this.connectTimeoutMs)} ms: ${reason}. Check that the server runs and sql.source.url is right.`,
        { code: (error as { code?: string }).code },
      );
    }
  }

  private async run(
    client: pg.PoolClient,
    config: (pg.QueryConfig | pg.QueryArrayConfig) & { queryMode?: 'extended' },
    query: SqlQuery,
    offset: number,
  ): Promise<pg.QueryResult> {
    try {
      return await client.query(config as pg.QueryConfig);
    } catch (error) {
      if (query.signal?.aborted === true) throw cancelled();
      const failure = error as { code?: string; message: string; position?: string };
      if (failure.code === '57014') {
        throw new SpillwayError(
          'SQL_TIMEOUT',
          query.signal?.aborted
            ? 'The query was cancelled by the caller and interrupted.'
            : `The query ran longer than ${formatCount(query.timeoutMs)} ms (sql.timeoutMs) and PostgreSQL interrupted it. Narrow it (a WHERE on indexed columns, fewer joins, an aggregate) and run it again.`,
          { timeoutMs: query.timeoutMs },
        );
      }
      if (failure.code === '25006') {
        throw new SpillwayError(
          'SQL_READ_ONLY',
          `query_sql only reads: PostgreSQL refused the statement in its read-only transaction (${failure.message}). Send a SELECT statement.`,
          {
            databaseCode: failure.code,
          },
        );
      }
      if (failure.code === undefined && !('severity' in (error as object))) {
        throw new SpillwayError('SQL_SOURCE_UNAVAILABLE', `The connection to PostgreSQL failed during the query: ${failure.message}. Run the query again.`);
      }
      const position = failure.position === undefined ? undefined : Number(failure.position) - 1 - offset;
      throw databaseError({ database: 'PostgreSQL', sql: query.sql, message: failure.message, code: failure.code, offset: position });
    }
  }
}
