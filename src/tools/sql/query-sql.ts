import { Type } from '../../util/type-builder.js';
import type { Config } from '../../config/schema.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import type { LazySqlSource } from '../../sql/open-sql-source.js';
import type { SqlResult } from '../../sql/sql-source.js';
import type { AdmissionGate, AdmissionGateOptions } from '../../util/admission-gate.js';
import { formatBytes, formatCount, plural } from '../../util/format.js';
import { querySqlOutput } from './query-sql-output.js';

const demoTables = [
  'Tables: transactions(id, ts ISO-8601 text, account_id, merchant, category, country, amount real, currency, channel, label "fraud"|"genuine", note text or null)',
  'and accounts(account_id, name, country, opened, risk_score).',
].join(' ');

function describeSource(config: Config): string {
  switch (config.sql.source.type) {
    case 'demo':
      return `the embedded demo SQLite database. ${demoTables}`;
    case 'sqlite':
      return 'a SQLite database (query sqlite_schema to see its tables).';
    case 'postgres':
      return 'a PostgreSQL database (query information_schema.tables to see its tables).';
  }
}

/** The query_sql queue: sql.maxConcurrent running, sql.maxWaiting waiting, refusals with BUSY. */
export function sqlGateOptions(config: () => Config): AdmissionGateOptions {
  return {
    name: 'sql',
    noun: 'query',
    plural: 'queries',
    keys: 'sql.maxConcurrent, sql.maxWaiting',
    limits: () => {
      const { sql, server } = config();
      return { running: sql.maxConcurrent, waiting: sql.maxWaiting, waitMs: server.queueWaitMs };
    },
  };
}

/**
 * query_sql: one read-only statement against the configured source. The
 * result is a table (an object whose `rows` member holds the rows), so it
 * spills by the usual rules; `total`, `returned` and `limited` travel beside
 * the rows and in the spill's metadata.
 *
 * @example
 * // {"sql": "SELECT country, count(*) AS n FROM transactions WHERE label = 'fraud' GROUP BY country", "label": "fraud by country"}
 */
export function querySqlTool(options: { source: LazySqlSource; gate?: AdmissionGate }): ToolDefinition {
  return defineTool({
    name: 'query_sql',
    longRunning: true,
    outputSchema: querySqlOutput,
    // The dialect and the tables follow sql.source, which a configuration reload may change.
    description: (config) =>
      [
        `Runs one read-only SQL statement (${config.sql.source.type === 'postgres' ? 'PostgreSQL' : 'SQLite'} dialect) against ${describeSource(config)}`,
        'Filter, join, group and sort in SQL: the file tools do not filter.',
        'The result is {total, returned, limited, summary, rows}: total is every row the query matches, counted by the database (null, with totalAtLeast, if counting outlasts the time limit); at most sql.maxRows rows and sql.maxBytes bytes are returned (cutAtBytes says when the byte limit cut the rows).',
        'Large results are saved to a file (e.g. results/0001-query_sql.jsonl) and you get its path, row count and columns: pass that path as `source` to export_table, draw_table or build_document, never the rows themselves.',
        'Writes (INSERT, UPDATE, DELETE, CREATE, ATTACH, PRAGMA assignments, several statements) are refused.',
      ].join(' '),
    inputSchema: Type.Object(
      {
        sql: Type.String({ minLength: 1, maxLength: 100_000, description: 'One SELECT (or WITH … SELECT) statement. No trailing second statement.' }),
        label: Type.Optional(
          Type.String({ maxLength: 200, description: 'A short name for what the result is (e.g. "fraud by country"); kept with the result and its file.' }),
        ),
      },
      { additionalProperties: false },
    ),
    annotations: (config) => ({
      title: 'Query SQL (read-only)',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: config.sql.source.type === 'postgres',
    }),
    async handler(args, context) {
      const { sql } = args;
      const label = args.label === '' ? undefined : args.label;
      const { maxRows, timeoutMs, maxBytes } = context.config.sql;
      const source = await options.source.get(context.config);
      const started = performance.now();
      const run = () => source.query({ sql, maxRows, maxBytes, timeoutMs, signal: context.signal });
      const result = options.gate === undefined ? await run() : await options.gate.run(run, { signal: context.signal });
      context.logger.info(
        { source: source.kind, total: result.total, returned: result.rows.length, ms: Math.round(performance.now() - started) },
        'query_sql ran',
      );
      return { value: presentQueryResult(result, { label, maxRows }) };
    },
  });
}

/** The tool's value: counts and notes first (they stay in the spill metadata), rows last. */
export function presentQueryResult(
  result: SqlResult,
  options: { label: string | undefined; maxRows: number; limitKey?: string; byteLimitKey?: string },
): Record<string, unknown> {
  const limitKey = options.limitKey ?? 'sql.maxRows';
  const byteLimitKey = options.byteLimitKey ?? 'sql.maxBytes';
  const returned = result.rows.length;
  const limited = result.total === null || returned < result.total || result.cutAtBytes !== undefined;
  const narrow = 'Narrow the query (WHERE), aggregate (GROUP BY) or page (ORDER BY … LIMIT/OFFSET) to see the rest.';
  const summary =
    result.cutAtBytes !== undefined
      ? `${formatCount(returned)} ${result.total === null ? '' : `of ${formatCount(result.total)} `}rows returned: the result was cut at ${formatBytes(result.cutAtBytes)} (the byte limit, ${byteLimitKey}) before the row limit. ${result.total === null ? 'More rows match. ' : ''}Select fewer or shorter columns, or ${narrow.charAt(0).toLowerCase()}${narrow.slice(1)}`
      : result.total === null
        ? `${formatCount(returned)} rows returned (the row limit, ${limitKey}); more rows match, but counting them all took too long, so the total is unknown. ${narrow}`
        : limited
          ? `${formatCount(returned)} of ${formatCount(result.total)} rows returned: the row limit (${limitKey}) is ${formatCount(options.maxRows)}. The total is the database's own count. ${narrow}`
          : returned === 0
            ? 'The query matched no rows.'
            : `${plural(returned, 'row')}, all returned.`;
  const notes = [...result.notes];
  if (result.blobColumns.length > 0) {
    notes.push(`BLOB values in ${result.blobColumns.map((column) => JSON.stringify(column)).join(', ')} are given as base64 strings.`);
  }
  const value: Record<string, unknown> = {};
  if (options.label !== undefined) value.label = options.label;
  value.total = result.total;
  if (result.total === null) value.totalAtLeast = returned + 1;
  value.returned = returned;
  value.limited = limited;
  if (result.cutAtBytes !== undefined) value.cutAtBytes = result.cutAtBytes;
  value.summary = summary;
  if (notes.length > 0) value.notes = notes;
  if (result.blobColumns.length > 0) value.binaryEncoding = Object.fromEntries(result.blobColumns.map((column) => [column, 'base64']));
  if (returned === 0) value.columns = result.columns;
  value.rows = result.rows;
  return value;
}
