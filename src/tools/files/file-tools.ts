import type { Host } from '../../host/host.js';
import type { ToolDefinition } from '../../host/tool.js';
import { attachFileTool } from './attach-file.js';
import { buildDocumentTool } from './build-document.js';
import { drawTableTool } from './draw-table.js';
import { exportTableTool } from './export-table.js';
import { fileToolServices, type FileToolOptions } from './file-tool-services.js';

/** The file-building tools (export_table, build_document, attach_file, draw_table), sharing one lazily created worker pool. */
export function fileTools(host: Host, options: FileToolOptions = {}): ToolDefinition[] {
  const services = fileToolServices(host, options);
  return [exportTableTool(services), buildDocumentTool(services), attachFileTool, drawTableTool(services)];
}
