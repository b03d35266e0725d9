import type { FilesSqlEngine } from '../analysis/files-sql-engine.js';
import { selectionSql, type TableSelection } from '../analysis/selection-sql.js';
import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import { formatCount } from '../util/format.js';

/**
 * The rows a chart binds, read with DuckDB under the same locks as query_files
 * (the source must be one of the conversation's data files). More rows than
 * charts.maxRows is refused with a hint to aggregate first.
 */
export async function readChartRows(options: {
  engine: FilesSqlEngine;
  sandbox: ConversationSandbox;
  config: Config;
  selection: TableSelection;
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
    maxBytes: config.analysis.maxBytes,
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
  if (result.cutAtBytes !== undefined) {
    // A chart of the rows that fit would be a chart of part of the data, silently: refuse instead.
    throw new SpillwayError(
      'CHART_TOO_LARGE',
      `The rows of ${selection.source} pass analysis.maxBytes (${formatCount(config.analysis.maxBytes)} bytes) before all ${formatCount(total)} are read. Chart only the columns the spec uses (columns), or aggregate first with query_files and chart that result's path.`,
      { limit: 'analysis.maxBytes', value: config.analysis.maxBytes },
    );
  }
  return result.rows;
}
