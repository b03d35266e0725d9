import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema, ToolDefinition } from '../host/tool.js';
import { normalizeUpstreamResult } from './normalize-result.js';
import { admitUpstreamCall } from './upstream-admission.js';
import type { UpstreamConnection } from './upstream-connection.js';

/** Separates the upstream's name from its tool's name: `github__create_issue`. */
export const namespaceSeparator = '__';

/** The name an upstream tool is offered under; characters MCP clients refuse become "_". */
export function exposedToolName(upstream: string, tool: string): string {
  return `${upstream}${namespaceSeparator}${tool.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/**
 * An upstream tool as a host tool: same input schema, origin {upstream}, so the
 * policy's upstream default applies and its results go through the spill rules
 * like any local tool's.
 */
export function upstreamToolDefinition(connection: UpstreamConnection, tool: Tool): ToolDefinition {
  const definition: ToolDefinition = {
    name: exposedToolName(connection.name, tool.name),
    description: describe(connection.name, tool),
    inputSchema: tool.inputSchema as JsonSchema,
    origin: { upstream: connection.name },
    async handler(args, context) {
      // The timeout comes from the call's configuration, so a reload of upstream.timeoutMs applies to the next call.
      const { upstreams, upstream } = context.config;
      const timeoutMs = (Object.hasOwn(upstreams, connection.name) ? upstreams[connection.name]?.timeoutMs : undefined) ?? upstream.timeoutMs;
      const result = await admitUpstreamCall(context, connection.name, () => connection.callTool(tool.name, args, { signal: context.signal, timeoutMs }));
      return { mcp: normalizeUpstreamResult(result) };
    },
  };
  const annotations = pickAnnotations(tool);
  if (annotations !== undefined) definition.annotations = annotations;
  return definition;
}

function describe(upstream: string, tool: Tool): string {
  const own = (tool.description ?? tool.title ?? '').trim();
  // Kept short: it is repeated for every upstream tool in every tools/list.
  const note = `[Upstream "${upstream}", tool ${tool.name}. It cannot read sandbox files: to send text or rows you already hold in files, use call_with_args_file instead of retyping them.]`;
  return own.length > 0 ? `${own}\n\n${note}` : note;
}

function pickAnnotations(tool: Tool): ToolDefinition['annotations'] {
  const source = tool.annotations;
  if (source === undefined) return undefined;
  const picked: NonNullable<ToolDefinition['annotations']> = {};
  const title = source.title ?? tool.title;
  if (title !== undefined) picked.title = title;
  if (source.readOnlyHint !== undefined) picked.readOnlyHint = source.readOnlyHint;
  if (source.destructiveHint !== undefined) picked.destructiveHint = source.destructiveHint;
  if (source.idempotentHint !== undefined) picked.idempotentHint = source.idempotentHint;
  if (source.openWorldHint !== undefined) picked.openWorldHint = source.openWorldHint;
  return picked;
}
