import { FilesSqlEngine } from '../../analysis/files-sql-engine.js';
import type { Host } from '../../host/host.js';
import type { ToolDefinition } from '../../host/tool.js';
import { inspectFileTool } from './inspect-file.js';
import { queryFilesTool } from './query-files.js';

/** Working on a whole result without reading it: inspect_file, query_files, build_chart. */
export function analysisTools(host: Host): ToolDefinition[] {
  const { maxConcurrent, maxWaiting } = host.config.analysis;
  const engine = new FilesSqlEngine({ maxConcurrent, maxWaiting });
  host.onClose(() => engine.close());
  return [inspectFileTool, queryFilesTool(engine)];
}
