import type { FilesSqlEngine } from '../analysis/files-sql-engine.js';
import type { Config } from '../config/types.js';
import { SpillwayError } from '../errors.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import { formatCount } from '../util/format.js';

export type ColumnChoice = string | { name: string; header?: string };
export interface SortKey {
  column: string;
  direction?: 'asc' | 'desc';
}
export interface ChartSelection {
  source: string;
  columns?: ColumnChoice[];
  sort?: SortKey | SortKey[];
  range?: { start: number; count?: number };
}

function identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The SELECT that reads a chart's rows: columns (renamed by header), sort (empty values last), range. */
export function selectionSql(selection: ChartSelection): string {
  const columns =
    selection.columns === undefined || selection.columns.length === 0
      ? '*'
      : selection.columns
          .map((column) => (typeof column === 'string' ? identifier(column) : `${identifier(column.name)}${column.header === undefined ? '' : ` AS ${identifier(column.header)}`}`))
          .join(', ');
  const sort = selection.sort === undefined ? [] : Array.isArray(selection.sort) ? selection.sort : [selection.sort];
  const order = sort.length === 0 ? '' : ` ORDER BY ${sort.map((key) => `${identifier(key.column)} ${key.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`).join(', ')}`;
  const limit = selection.range?.count === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(selection.range.count))}`;
  const offset = selection.range === undefined || selection.range.start <= 0 ? '' : ` OFFSET ${Math.floor(selection.range.start)}`;
  return `SELECT ${columns} FROM ${literal(selection.source)}${order}${limit}${offset}`;
}

/**
 * The rows a chart binds, read with DuckDB under the same locks as query_files
 * (the source must be one of the conversation's data files). More rows than
 * charts.maxRows is refused with a hint to aggregate first.
 */
export async function readChartRows(options: {
  engine: FilesSqlEngine;
  sandbox: ConversationSandbox;
  config: Config;
  selection: ChartSelection;
  signal?: AbortSignal;
}): Promise<Record<string, unknown>[]> {
  const { engine, sandbox, config, selection } = options;
  // The sandbox's own checks first, so a bad path gets the same PATH_* answer as every other tool.
  const file = await sandbox.openRead(selection.source);
  await file.handle.close();
  const { maxRows } = config.charts;
  const result = await engine.query({
    sandbox,
    sql: selectionSql({ ...selection, source: file.relative }),
    maxRows,
    timeoutMs: config.analysis.timeoutMs,
    memoryBytes: config.analysis.memoryBytes,
    threads: config.analysis.threads,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const total = result.total ?? result.rows.length;
  if (total > maxRows) {
    throw new SpillwayError(
      'CHART_TOO_LARGE',
      `${selection.source} selects ${formatCount(total)} rows; a chart binds at most ${formatCount(maxRows)} (charts.maxRows). Aggregate first, e.g. query_files with SELECT category, count(*) AS n FROM '${file.relative}' GROUP BY 1 (or date_trunc('day', ts) for a time series), then chart that result's path; or pick a range.`,
      { rows: total, limit: 'charts.maxRows', value: maxRows },
    );
  }
  return result.rows;
}
