import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ReadResourceResult,
  type ProgressToken,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SpillwayError, toSpillwayError } from '../errors.js';
import type { ExecuteResult, Host } from '../host/host.js';
import type { HostResource } from '../host/host-resources.js';
import { errorMetaKey, structuredResultSchema, toErrorMeta, toStructuredResult } from '../host/structured-result.js';
import type { ApprovalHandler, ListedTool, ProgressUpdate } from '../host/tool.js';
import { isTextMimeType, listAttachments, mimeTypeFor, pathFromAttachmentUri } from '../outputs/attachments.js';
import { elicitationApprover, type ElicitationApproverOptions } from '../policy/elicitation-approver.js';
import { screeningMetaKey, spillMetaKey, toSpillMeta } from '../spill/spill-ref.js';
import { defaultPrincipal } from '../sandbox/index.js';
import { installLogging } from './mcp-logging.js';
import { installTasks, taskError, tasksCapability } from './mcp-tasks.js';
import { TaskBoard } from './task-board.js';
import { installPrompts, type ScopeResolver } from './mcp-prompts.js';
import { readResourceFile } from './read-resource.js';
import { resourceError, resourceNotFoundCode } from './resource-errors.js';
import { installSubscriptions } from './resource-subscriptions.js';
import { requestScope, type RequestScope, type ScopeSources } from './request-scope.js';

export interface McpSession {
  /**
   * The session's own conversation (over HTTP its session id; over stdio one per
   * process): used for a request that names none in `_meta["spillway/conversation"]`
   * or the `Mcp-Conversation-Id` header.
   */
  conversationId: string;
  /** The caller's identity (from HTTP auth, or the transport). */
  caller?: string;
  /** The tasks board the front's sessions share (caps per principal); default one for this session alone. */
  tasks?: TaskBoard;
}

/** How many (principal, conversation) pairs a session remembers using, for resources/list_changed. */
const maxScopesPerSession = 64;

export { resourceNotFoundCode };

export const serverInfo = { name: 'spillway', version: '0.1.0' } as const;

const instructions = [
  'spillway runs your tools and keeps data out of your output.',
  'Results over ~1,000 characters are saved to sandbox files; the result tells you the path (e.g. results/0007-query_sql.jsonl), rows and columns.',
  'Never retype rows or long text as arguments: pass the path. export_table, draw_table and build_document take a spill path as source;',
  'to send file contents to a tool that cannot read files, write an arguments file (write_file or run_script) and use call_with_args_file.',
].join(' ');

/**
 * An MCP server for one session. Each request works in the conversation it
 * names (see request-scope.ts), by default the session's own; tools come from
 * the host's registry; the conversation's outputs/ files are its resources.
 */
export function createMcpServer(host: Host, session: McpSession): Server {
  const server = new Server(serverInfo, {
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
      tasks: tasksCapability,
    },
    instructions,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: host.listTools().map(toMcpTool) }));

  // The conversations this session has worked in: a new file in one of them is announced to it.
  const used = new Set<string>();
  let principal: string = defaultPrincipal;
  const scopeOf = (sources: ScopeSources): RequestScope => {
    const scope = requestScope(sources, () => session.conversationId);
    principal = scope.principal;
    const key = `${scope.principal}/${scope.conversationId}`;
    used.delete(key);
    used.add(key);
    if (used.size > maxScopesPerSession) used.delete(used.values().next().value as string);
    return scope;
  };
  const sourcesOf = (meta: Record<string, unknown> | undefined, extra: ScopeSources): ScopeSources => ({
    meta,
    authInfo: extra.authInfo,
    requestInfo: extra.requestInfo,
  });

  const scopeOfRequest: ScopeResolver = (meta, extra) => scopeOf(sourcesOf(meta, extra));
  const logging = installLogging(server);
  const closePrompts = installPrompts(server, host, scopeOfRequest);
  const closeSubscriptions = installSubscriptions(server, host, scopeOfRequest);

  const tasks = installTasks(
    server,
    session.tasks ?? new TaskBoard(() => host.config.tasks),
    (meta, extra) => scopeOf(sourcesOf(meta, extra as ScopeSources)).principal,
  );

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const asTask = request.params.task;
    let scope: RequestScope;
    try {
      scope = scopeOf(sourcesOf(request.params._meta, extra));
    } catch (error) {
      if (asTask !== undefined) throw taskError(error);
      return scopeErrorResult(toSpillwayError(error));
    }
    const tool = host.getTool(request.params.name);
    const call = (signal: AbortSignal, send: (notification: ServerNotification) => Promise<void>): Promise<CallToolResult> =>
      host
        .execute(
          { name: request.params.name, arguments: request.params.arguments ?? {} },
          {
            conversationId: scope.conversationId,
            principal: scope.principal,
            ...(session.caller === undefined ? {} : { caller: session.caller }),
            signal,
            ...progressNotifications(request.params._meta?.progressToken, send),
            onLog: logging.forCall(send),
            ...approvalThroughElicitation(server, { timeoutMs: host.config.policy.approvalTimeoutMs, signal }),
          },
        )
        .then((result) => toCallToolResult(result, tool));
    if (asTask === undefined) return call(extra.signal, extra.sendNotification);
    if (tool?.longRunning !== true) throw taskError(notAsTask(request.params.name, tool === undefined));
    // The task outlives this request: its messages go on the session's own stream, not the request's.
    return tasks.start(scope.principal, asTask, (signal) => call(signal, (notification) => server.notification(notification)));
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    let scope: RequestScope;
    try {
      scope = scopeOf(sourcesOf(request.params?._meta, extra));
    } catch (error) {
      throw resourceError('', toSpillwayError(error));
    }
    const attachments = await listAttachments(host.sandbox.conversation(scope.conversationId, scope.principal));
    return {
      resources: [
        ...attachments.map((attachment) => ({
          uri: attachment.uri,
          name: attachment.filename,
          title: attachment.path,
          mimeType: attachment.mimeType,
          size: attachment.bytes,
        })),
        ...host.resources.list().map((resource) => ({
          uri: resource.uri,
          name: resource.name,
          mimeType: resource.mimeType,
          ...(resource.title === undefined ? {} : { title: resource.title }),
          ...(resource.description === undefined ? {} : { description: resource.description }),
        })),
      ],
    };
  });

  // Each read of an outputs/ file reads and encodes up to resources.maxReadBytes on this thread:
  // admitted like tool work, so a batch of a hundred reads cannot hold every other client up.
  const resourceReads = host.queues.gate({
    name: 'resources',
    noun: 'resource read',
    keys: 'resources.maxConcurrentReads, server.queueWaitMs',
    limits: () => {
      const running = host.config.resources.maxConcurrentReads;
      return { running, waiting: 4 * running, waitMs: host.config.server.queueWaitMs };
    },
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const offered = host.resources.get(uri);
    if (offered !== undefined) return { contents: [await readHostResource(offered)] };
    let release: (() => void) | undefined;
    try {
      release = await resourceReads.admit({ signal: extra.signal });
      const scope = scopeOf(sourcesOf(request.params._meta, extra));
      const sandbox = host.sandbox.conversation(scope.conversationId, scope.principal);
      const relative = pathFromAttachmentUri(uri);
      const { data, relative: path } = await readResourceFile(sandbox, relative, host.config.resources.maxReadBytes);
      const mimeType = mimeTypeFor(path);
      return {
        contents: [isTextMimeType(mimeType) ? { uri, mimeType, text: data.toString('utf8') } : { uri, mimeType, blob: data.toString('base64') }],
      };
    } catch (error) {
      throw resourceError(uri, toSpillwayError(error));
    } finally {
      release?.();
    }
  });

  const ownConversation = (): string | undefined => {
    try {
      return session.conversationId;
    } catch {
      return undefined; // an HTTP session before initialize has no id yet
    }
  };
  const onToolsChanged = () => {
    server.sendToolListChanged().catch(() => undefined);
  };
  const onAttachment = (event: { conversationId: string; principal: string }) => {
    if (used.has(`${event.principal}/${event.conversationId}`) || (event.principal === principal && event.conversationId === ownConversation())) {
      server.sendResourceListChanged().catch(() => undefined);
    }
  };
  host.on('tools-changed', onToolsChanged);
  host.on('attachment', onAttachment);
  const previousOnClose = server.onclose;
  server.onclose = () => {
    host.off('tools-changed', onToolsChanged);
    host.off('attachment', onAttachment);
    closePrompts();
    closeSubscriptions();
    tasks.close();
    previousOnClose?.();
  };
  return server;
}

/** An embedder's resource as resources/read contents. */
async function readHostResource(resource: HostResource): Promise<ReadResourceResult['contents'][number]> {
  const read = await resource.read();
  const { uri, mimeType } = resource;
  return 'text' in read ? { uri, mimeType, text: read.text } : { uri, mimeType, blob: read.blob.toString('base64') };
}

/** A listed tool (`host.listTools()`, descriptions resolved) as MCP lists it. */
export function toMcpTool(tool: ListedTool): Tool {
  const mcpTool: Tool = { name: tool.name, description: tool.description, inputSchema: { type: 'object', ...tool.inputSchema } as Tool['inputSchema'] };
  const outputSchema = declaredOutputSchema(tool);
  if (outputSchema !== undefined) mcpTool.outputSchema = outputSchema as Tool['outputSchema'];
  if (tool.annotations !== undefined) mcpTool.annotations = tool.annotations;
  if (tool.longRunning === true) mcpTool.execution = { taskSupport: 'optional' };
  return mcpTool;
}

/** Only spillway's own tools wrap their results in the structured envelope; upstream tools keep their own shapes. */
function declaredOutputSchema(tool: ListedTool): Record<string, unknown> | undefined {
  if (!hasStructuredResult(tool) || tool.outputSchema === undefined) return undefined;
  // JSON round trip: TypeBox marks its schemas with symbol keys, which are not part of the wire schema.
  return JSON.parse(JSON.stringify(structuredResultSchema(tool.outputSchema))) as Record<string, unknown>;
}

function hasStructuredResult(tool: ListedTool): boolean {
  return tool.outputSchema !== undefined && (tool.origin === undefined || tool.origin === 'local');
}

/**
 * The host's result as MCP: the text the model reads, download cards as
 * resource links, spill facts in _meta; for spillway's own tools the same
 * facts as `structuredContent` (their declared output schema); for failures
 * the error code in `_meta["spillway/error"]`.
 */
export function toCallToolResult(result: ExecuteResult, tool?: ListedTool): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: result.text }];
  for (const attachment of result.attachments) {
    content.push({
      type: 'resource_link',
      uri: attachment.uri,
      name: attachment.filename,
      mimeType: attachment.mimeType,
      description: `${attachment.path}, ${attachment.bytes} bytes`,
      ...(attachment.downloadUrl === undefined
        ? {}
        : {
            _meta: {
              downloadUrl: attachment.downloadUrl,
              ...(attachment.downloadExpiresAt === undefined ? {} : { downloadExpiresAt: attachment.downloadExpiresAt }),
            },
          }),
    });
  }
  const mcp: CallToolResult = { content, isError: result.isError };
  const meta: Record<string, unknown> = {};
  if (result.spill !== undefined) meta[spillMetaKey] = toSpillMeta(result.spill);
  if (result.error !== undefined) meta[errorMetaKey] = toErrorMeta(result.error);
  if (result.screening !== undefined) meta[screeningMetaKey] = result.screening;
  if (Object.keys(meta).length > 0) mcp._meta = meta;
  if (!result.isError && tool !== undefined && hasStructuredResult(tool)) {
    mcp.structuredContent = toStructuredResult(result) as unknown as Record<string, unknown>;
  }
  return mcp;
}

/** A task-augmented call of a tool that is not long-running (or not there at all): refused, nothing run. */
function notAsTask(name: string, unknown: boolean): SpillwayError {
  if (unknown) return new SpillwayError('TOOL_NOT_FOUND', `No tool named ${name} is registered.`, { tool: name });
  return new SpillwayError('TASK_NOT_SUPPORTED', `${name} does not run as a task (its listing has no execution.taskSupport); call it without "task".`, {
    tool: name,
  });
}

/** A request whose conversation or principal is unusable: an error result the model can read, nothing run. */
function scopeErrorResult(error: SpillwayError): CallToolResult {
  return { content: [{ type: 'text', text: error.message }], isError: true, _meta: { [errorMetaKey]: toErrorMeta(error.toJSON()) } };
}

/**
 * Progress as notifications/progress, when the request carried a progressToken:
 * clients that reset their request timeout on progress keep waiting for a long
 * export. Sending never fails the call.
 */
function progressNotifications(
  progressToken: ProgressToken | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): { onProgress?: (update: ProgressUpdate) => void } {
  if (progressToken === undefined) return {};
  return {
    onProgress: (update) => {
      send({ method: 'notifications/progress', params: { progressToken, ...update } }).catch(() => undefined);
    },
  };
}

/** An approval channel through MCP elicitation, when the connected client declared form elicitation (`elicitation: {}` counts). */
function approvalThroughElicitation(server: Server, options: ElicitationApproverOptions): { approve?: ApprovalHandler } {
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return {};
  return { approve: elicitationApprover(server, options) };
}
