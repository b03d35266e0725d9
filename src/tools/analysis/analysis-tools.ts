import type { Host } from '../../host/host.js';
import type { ToolDefinition } from '../../host/tool.js';
import { inspectFileTool } from './inspect-file.js';

/** Working on a whole result without reading it: inspect_file, query_files, build_chart. */
export function analysisTools(_host: Host): ToolDefinition[] {
  return [inspectFileTool];
}
