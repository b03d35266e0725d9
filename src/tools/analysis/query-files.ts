import type { Static } from '@sinclair/typebox';
import { Type } from '../../util/type-builder.js';
import type { FilesSqlEngine } from '../../analysis/files-sql-engine.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import { presentQueryResult } from '../sql/query-sql.js';
import { queryFilesOutput } from './analysis-output.js';

export const QueryFilesInput = Type.Object(
  {
    sql: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description:
        "One SELECT (DuckDB dialect) whose tables are this conversation's files named by sandbox path in single quotes, e.g. SELECT country, count(*) AS n FROM 'results/0003-list_tickets.jsonl' GROUP BY 1 ORDER BY n DESC.",
    }),
    label: Type.Optional(
      Type.String({ maxLength: 200, description: 'A short name for what the result is (e.g. "tickets by country"); kept with the result and its file.' }),
    ),
  },
  { additionalProperties: false },
);
export type QueryFilesArgs = Static<typeof QueryFilesInput>;

/**
 * query_files: read-only SQL (DuckDB) over the conversation's own JSONL, JSON,
 * CSV and Parquet files. The result is shaped like query_sql's, so it spills
 * by the same rules (true total, rows returned, spill path).
 *
 * @example
 * // {"sql": "SELECT t.country, count(*) AS n FROM 'results/0003-list_tickets.jsonl' t JOIN 'results/0004-list_users.jsonl' u ON u.id = t.user_id GROUP BY 1"}
 */
export function queryFilesTool(engine: FilesSqlEngine): ToolDefinition {
  return defineTool({
    name: 'query_files',
    readsConversationFiles: true,
    longRunning: true,
    outputSchema: queryFilesOutput,
    description: [
      "Runs one read-only SQL statement (DuckDB dialect) over this conversation's own files: spilled results (results/*.jsonl), exports and other JSONL, JSON, CSV or Parquet files. A table is a file's sandbox path in single quotes: FROM 'results/0003-list_tickets.jsonl'; several files can be joined.",
      'Use it to filter, group, join, sort and page a large result instead of reading it: inspect_file first (columns, types, distinct values), then query here, then pass the result path to build_chart, export_table or draw_table.',
      'The result is {total, returned, limited, summary, rows}: total counts every row the query produces; at most analysis.maxRows rows and analysis.maxBytes bytes are returned (cutAtBytes says when the byte limit cut the rows; a single row larger than it is refused), and a large result is saved to a file whose path you get.',
      "Only SELECT-like statements (SELECT, WITH, FROM-first, VALUES, DESCRIBE, SUMMARIZE) run; COPY, ATTACH, INSTALL, LOAD, SET, CREATE and anything else that writes are refused, as are DuckDB's settings and catalog (current_setting, duckdb_*(), pragma_*), absolute paths, other conversations' files, globs and URLs. Queries have a memory limit and a deadline.",
    ].join(' '),
    inputSchema: QueryFilesInput,
    annotations: {
      title: 'Query conversation files (DuckDB, read-only)',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    async handler(args, context) {
      const label = args.label !== undefined && args.label.length > 0 ? args.label : undefined;
      const { maxRows, maxBytes, timeoutMs, memoryBytes, threads } = context.config.analysis;
      const started = performance.now();
      const result = await engine.query({
        sandbox: context.sandbox,
        sql: args.sql,
        maxRows,
        maxBytes,
        timeoutMs,
        memoryBytes,
        threads,
        signal: context.signal,
      });
      context.logger.info({ total: result.total, returned: result.rows.length, ms: Math.round(performance.now() - started) }, 'query_files ran');
      return { value: presentQueryResult(result, { label, maxRows, limitKey: 'analysis.maxRows', byteLimitKey: 'analysis.maxBytes' }) };
    },
  });
}
