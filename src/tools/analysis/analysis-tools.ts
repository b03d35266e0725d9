import { FilesSqlEngine, filesSqlGateOptions } from '../../analysis/files-sql-engine.js';
import { ChartPool } from '../../charts/chart-pool.js';
import type { ChartRenderer } from '../../charts/chart-renderer.js';
import type { Host } from '../../host/host.js';
import type { AdmissionGateOptions } from '../../util/admission-gate.js';
import type { ToolDefinition } from '../../host/tool.js';
import { buildChartTool } from './build-chart.js';
import { withParquetExport } from './export-parquet.js';
import { inspectFileTool } from './inspect-file.js';
import { queryFilesTool } from './query-files.js';

/** The services behind the analysis tools: DuckDB child processes and the chart processes. */
export interface AnalysisServices {
  engine: FilesSqlEngine;
  charts: ChartRenderer;
}

/** `charts`: render somewhere else (the fleet's job queue; its owner closes it) instead of in this host's chart process. */
export function analysisServices(host: Host, options: { charts?: ChartRenderer } = {}): AnalysisServices {
  const { maxConcurrent, maxWaiting } = host.config.analysis;
  const gate = host.queues.gate(filesSqlGateOptions(() => ({ ...host.config.analysis, queueWaitMs: host.config.server.queueWaitMs })));
  const engine = new FilesSqlEngine({ maxConcurrent, maxWaiting, gate });
  host.onClose(() => engine.close());
  // A served host loads DuckDB once it is up, so the first query_files call finds it loaded (a one-shot CLI call never does),
  // and compiles query_files' argument schema on the next turn (the first compile also builds ajv's meta-schema).
  host.once('serving', () => {
    void engine.prepare();
    setImmediate(() => host.prepareTool('query_files'));
  });
  if (options.charts !== undefined) return { engine, charts: options.charts };
  const chartThreads = 1;
  const chartsWaiting = 16;
  const charts = new ChartPool({
    threads: chartThreads,
    maxQueue: chartsWaiting,
    gate: host.queues.gate(chartsGateOptions(host)),
    memoryBytes: () => host.config.charts.memoryBytes,
  });
  host.onClose(() => charts.close());
  return { engine, charts };
}

/** The "charts" queue of /healthz: one chart at a time per host, 16 waiting. */
function chartsGateOptions(host: Host): AdmissionGateOptions {
  return { name: 'charts', noun: 'chart', limits: () => ({ running: 1, waiting: 16, waitMs: host.config.server.queueWaitMs }) };
}

/** Working on a whole result without reading it: inspect_file, query_files, build_chart. */
export function analysisTools(services: AnalysisServices): ToolDefinition[] {
  return [inspectFileTool(services.engine), queryFilesTool(services.engine), buildChartTool({ engine: services.engine, pool: services.charts })];
}

/** export_table gains format "parquet" (written by DuckDB); the other tools pass through. */
export function withParquet(tools: ToolDefinition[], services: AnalysisServices): ToolDefinition[] {
  return tools.map((tool) => (tool.name === 'export_table' ? withParquetExport(tool, services.engine) : tool));
}
