import type { ChartRenderer } from '../charts/chart-renderer.js';
import type { Host } from '../host/host.js';
import type { ToolDefinition } from '../host/tool.js';
import { analysisServices, analysisTools, withParquet } from './analysis/analysis-tools.js';
import { resolveFigure } from './analysis/document-figures.js';
import { callWithArgsFileTool } from './delegation/call-with-args-file.js';
import type { FigureResolver, FileToolOptions } from './files/file-tool-services.js';
import { fileTools } from './files/file-tools.js';
import { listFilesTool } from './reread/list-files.js';
import { readFileTool } from './reread/read-file.js';
import { searchFileTool } from './reread/search-file.js';
import { searchFilesTool } from './reread/search-files.js';
import { scriptTools } from './script/script-tools.js';
import { LazySqlSource } from '../sql/open-sql-source.js';
import { querySqlTool, sqlGateOptions } from './sql/query-sql.js';

/**
 * The tools every host offers, by capability. A capability that needs shared
 * services (the worker pool, the SQL source) creates them here from the host
 * and registers their shutdown with host.onClose.
 */
export async function builtinTools(host: Host, options: FileToolOptions & { charts?: ChartRenderer } = {}): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];

  // Reread: read_file, search_file, search_files, list_files.
  tools.push(readFileTool, searchFileTool, searchFilesTool, listFilesTool);

  // File building (export_table, build_document, attach_file, draw_table); Parquet exports go through DuckDB.
  const { charts, ...fileOptions } = options;
  const analysis = analysisServices(host, charts === undefined ? {} : { charts });
  const figures: FigureResolver = (block, context) => resolveFigure(block, analysis, context);
  tools.push(...withParquet(fileTools(host, { ...fileOptions, figures }), analysis));

  // Delegation (call_with_args_file).
  tools.push(callWithArgsFileTool);

  // Scripts (run_script, write_file).
  tools.push(...scriptTools(host));

  // SQL (query_sql). The source opens on the first query (the demo database is built then).
  const sqlSource = new LazySqlSource(host.logger);
  host.onClose(() => sqlSource.close());
  tools.push(querySqlTool({ source: sqlSource, gate: host.queues.gate(sqlGateOptions(() => host.config)) }));

  // Analysis over the conversation's own files (inspect_file, query_files, build_chart).
  tools.push(...analysisTools(analysis));

  return tools;
}
