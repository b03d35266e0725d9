import type { Host } from '../host/host.js';
import type { ToolDefinition } from '../host/tool.js';
import { listFilesTool } from './reread/list-files.js';
import { readFileTool } from './reread/read-file.js';
import { searchFileTool } from './reread/search-file.js';

/**
 * The tools every host offers. Each capability adds its tools here; tools that
 * need shared services (the worker pool, the SQL source) get them from the host.
 */
export async function builtinTools(_host: Host): Promise<ToolDefinition[]> {
  return [readFileTool, searchFileTool, listFilesTool];
}
