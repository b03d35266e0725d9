import type { FilesSqlEngine } from '../analysis/files-sql-engine.js';
import type { TableSelection } from '../analysis/selection-sql.js';
import type { Config } from '../config/schema.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import type { ChartRenderer } from './chart-renderer.js';
import { readChartRows } from './chart-rows.js';
import type { ChartImages } from './render-chart.js';

export interface DrawChartInput {
  engine: FilesSqlEngine;
  pool: ChartRenderer;
  sandbox: ConversationSandbox;
  config: Config;
  /** The model's Vega-Lite spec, unchecked. */
  spec: unknown;
  selection: TableSelection;
  signal?: AbortSignal;
}

/**
 * One chart from a sandbox table: the spec checked, the rows read under
 * query_files' locks (capped by charts.maxRows), rendered to SVG and PNG in
 * a chart process. build_chart and chart blocks in documents both use it.
 */
export async function drawChart(input: DrawChartInput): Promise<{ rows: number; images: ChartImages }> {
  const { engine, sandbox, config, selection } = input;
  const { maxMarks, timeoutMs, scale, maxPixels } = config.charts;
  // Loaded with the first chart: its expression parser (vega-expression and vega-util, ~50
  // modules) stays off the start of a `spillway call` or `serve` that draws none.
  const { checkChartSpec } = await import('./check-spec.js');
  const spec = checkChartSpec(input.spec, { maxPixels, scale });
  const rows = await readChartRows({ engine, sandbox, config, selection, ...(input.signal === undefined ? {} : { signal: input.signal }) });
  const images = await input.pool.render(
    { spec, rows, maxMarks, scale, maxPixels },
    { timeoutMs, ...(input.signal === undefined ? {} : { signal: input.signal }) },
  );
  return { rows: rows.length, images };
}
