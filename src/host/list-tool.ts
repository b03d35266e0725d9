import type { Config } from '../config/schema.js';
import type { ListedTool, ToolDefinition } from './tool.js';

/** A tool as clients see it under `config`: a description or annotations given as functions are called with it. */
export function listTool(tool: ToolDefinition, config: Config): ListedTool {
  const { description, annotations, ...rest } = tool;
  const listed: ListedTool = { ...rest, description: resolve(tool.name, description, config) };
  if (annotations !== undefined) listed.annotations = typeof annotations === 'function' ? annotations(config) : annotations;
  return listed;
}

/** True when how the tool is listed depends on the configuration. */
export function listingDependsOnConfig(tool: ToolDefinition): boolean {
  return typeof tool.description === 'function' || typeof tool.annotations === 'function';
}

function resolve(name: string, description: ToolDefinition['description'], config: Config): string {
  if (typeof description === 'string') return description;
  try {
    return description(config);
  } catch (error) {
    // A listing must not fail because one tool cannot describe itself; the tool still runs.
    return `The ${name} tool (its description could not be built: ${(error as Error).message}).`;
  }
}
