import type { TObject } from '@sinclair/typebox';
import type { ToolDefinition } from './tool.js';

/**
 * A local tool whose input schema is a TypeBox object: one source for the
 * JSON Schema (ajv, MCP tools/list, docs/tools.md) and for the type of the
 * handler's `args`, so handlers need neither casts nor a second check.
 *
 * @example
 * const echoTool = defineTool({
 *   name: 'echo',
 *   description: 'Says it back.',
 *   inputSchema: Type.Object({ text: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
 *   handler: (args) => ({ value: args.text }), // args: { text: string }
 * });
 * host.registerTool(echoTool);
 */
export function defineTool<Input extends TObject>(definition: ToolDefinition<Input>): ToolDefinition {
  // Type-erased for the registry: the host validates arguments against
  // inputSchema before it calls the handler, so the handler's type holds.
  return definition as unknown as ToolDefinition;
}
