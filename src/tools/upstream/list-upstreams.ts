import { Type } from '../../util/type-builder.js';
import { defineTool } from '../../host/define-tool.js';
import type { ToolDefinition } from '../../host/tool.js';
import type { UpstreamManager } from '../../upstream/upstream-manager.js';
import { listUpstreamsOutput } from './list-upstreams-output.js';
import { readsOnly } from '../tool-annotations.js';

/** The `list_upstreams` tool: the model's view of which upstream servers are up, and why not. */
export function listUpstreamsTool(manager: UpstreamManager): ToolDefinition {
  return defineTool({
    name: 'list_upstreams',
    outputSchema: listUpstreamsOutput,
    description: [
      'List the upstream MCP servers this host connects to: state (connected; connecting: its tools appear when it is ready; reconnecting; failed), the tools each offers here (named NAME__tool),',
      "the last error (with the server's recent stderr), when the next reconnect attempt is due, and how often it was restarted for not answering.",
      'Use it when an upstream tool is missing or fails with UPSTREAM_UNAVAILABLE, and tell the user what it says.',
    ].join(' '),
    inputSchema: Type.Object({}, { additionalProperties: false }),
    spill: false,
    annotations: readsOnly('List upstream MCP servers'),
    handler: () => ({ value: { upstreams: manager.reports().map(({ tools: _own, ...report }) => report) } }),
  });
}
