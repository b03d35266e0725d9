import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { toSpillwayError } from '../errors.js';
import type { ExecuteResult, Host } from '../host/host.js';
import type { ApprovalHandler, ListedTool } from '../host/tool.js';
import { isTextMimeType, listAttachments, mimeTypeFor, pathFromAttachmentUri } from '../outputs/attachments.js';
import { elicitationApprover, type ElicitationApproverOptions } from '../policy/elicitation-approver.js';
import { spillMetaKey, toSpillMeta } from '../spill/spill-ref.js';

export interface McpSession {
  /** The conversation this MCP session is: one session, one sandbox folder. */
  conversationId: string;
  /** The caller's identity (from HTTP auth, or the transport). */
  caller?: string;
}

export const serverInfo = { name: 'spillway', version: '0.1.0' } as const;

const instructions = [
  'spillway runs your tools and keeps data out of your output.',
  'Results over ~1,000 characters are saved to sandbox files; the result tells you the path (e.g. results/0007-query_sql.jsonl), rows and columns.',
  'Never retype rows or long text as arguments: pass the path. export_table, draw_table and build_document take a spill path as source;',
  'to send file contents to a tool that cannot read files, write an arguments file (write_file or run_script) and use call_with_args_file.',
].join(' ');

/**
 * An MCP server for one session, bound to one conversation of the host. Tools
 * come from the host's registry; outputs/ files are its resources.
 */
export function createMcpServer(host: Host, session: McpSession): Server {
  const server = new Server(serverInfo, {
    capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
    instructions,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: host.listTools().map(toMcpTool) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const result = await host.execute(
      { name: request.params.name, arguments: request.params.arguments ?? {} },
      {
        conversationId: session.conversationId,
        ...(session.caller === undefined ? {} : { caller: session.caller }),
        signal: extra.signal,
        ...approvalThroughElicitation(server, { timeoutMs: host.config.policy.approvalTimeoutMs, signal: extra.signal }),
      },
    );
    return toCallToolResult(result);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const attachments = await listAttachments(host.sandbox.conversation(session.conversationId));
    return {
      resources: attachments.map((attachment) => ({
        uri: attachment.uri,
        name: attachment.filename,
        title: attachment.path,
        mimeType: attachment.mimeType,
        size: attachment.bytes,
      })),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const relative = pathFromAttachmentUri(uri);
    const sandbox = host.sandbox.conversation(session.conversationId);
    try {
      const { data, relative: path } = await sandbox.readFile(relative, { folders: ['outputs'], maxBytes: 256 * 1024 * 1024 });
      const mimeType = mimeTypeFor(path);
      return {
        contents: [isTextMimeType(mimeType) ? { uri, mimeType, text: data.toString('utf8') } : { uri, mimeType, blob: data.toString('base64') }],
      };
    } catch (error) {
      throw new Error(toSpillwayError(error).message);
    }
  });

  const onToolsChanged = () => {
    server.sendToolListChanged().catch(() => undefined);
  };
  const onAttachment = (event: { conversationId: string }) => {
    if (event.conversationId === session.conversationId) server.sendResourceListChanged().catch(() => undefined);
  };
  host.on('tools-changed', onToolsChanged);
  host.on('attachment', onAttachment);
  const previousOnClose = server.onclose;
  server.onclose = () => {
    host.off('tools-changed', onToolsChanged);
    host.off('attachment', onAttachment);
    previousOnClose?.();
  };
  return server;
}

/** A listed tool (`host.listTools()`, descriptions resolved) as MCP lists it. */
export function toMcpTool(tool: ListedTool): Tool {
  const mcpTool: Tool = { name: tool.name, description: tool.description, inputSchema: { type: 'object', ...tool.inputSchema } as Tool['inputSchema'] };
  if (tool.annotations !== undefined) mcpTool.annotations = tool.annotations;
  return mcpTool;
}

/** The host's result as MCP: the text the model reads, download cards as resource links, spill facts in _meta. */
export function toCallToolResult(result: ExecuteResult): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: result.text }];
  for (const attachment of result.attachments) {
    content.push({ type: 'resource_link', uri: attachment.uri, name: attachment.filename, mimeType: attachment.mimeType, description: `${attachment.path}, ${attachment.bytes} bytes` });
  }
  const mcp: CallToolResult = { content, isError: result.isError };
  if (result.spill !== undefined) mcp._meta = { [spillMetaKey]: toSpillMeta(result.spill) };
  return mcp;
}

/** An approval channel through MCP elicitation, when the connected client declared form elicitation (`elicitation: {}` counts). */
function approvalThroughElicitation(server: Server, options: ElicitationApproverOptions): { approve?: ApprovalHandler } {
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return {};
  return { approve: elicitationApprover(server, options) };
}
