import { FilesSqlEngine } from '../../analysis/files-sql-engine.js';
import { ChartPool } from '../../charts/chart-pool.js';
import type { Host } from '../../host/host.js';
import type { ToolDefinition } from '../../host/tool.js';
import { buildChartTool } from './build-chart.js';
import { inspectFileTool } from './inspect-file.js';
import { queryFilesTool } from './query-files.js';

/** Working on a whole result without reading it: inspect_file, query_files, build_chart. */
export function analysisTools(host: Host): ToolDefinition[] {
  const { maxConcurrent, maxWaiting } = host.config.analysis;
  const engine = new FilesSqlEngine({ maxConcurrent, maxWaiting });
  const charts = new ChartPool({ threads: 1, maxQueue: 16 });
  host.onClose(() => engine.close());
  host.onClose(() => charts.close());
  return [inspectFileTool, queryFilesTool(engine), buildChartTool({ engine, pool: charts })];
}
