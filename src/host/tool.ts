import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../log/logger.js';
import type { ApprovalDigest } from '../policy/approval-digest.js';
import type { ConversationSandbox } from '../sandbox/index.js';

/** A JSON Schema for a tool's arguments (an object schema). */
export type JsonSchema = Record<string, unknown> & { type?: 'object' };

/** A file placed in a conversation's outputs/: the download card the user gets. */
export interface Attachment {
  /** Relative to the conversation folder, always under outputs/. */
  path: string;
  filename: string;
  bytes: number;
  mimeType: string;
  /** Rows written, for tables. */
  rows?: number;
  /** The URI an MCP client reads it back with (resources/read), only within its own conversation. */
  uri: string;
}

/** What a tool handler returns. */
export interface ToolOutput {
  /** The result: a string is text, anything else is JSON. */
  value?: unknown;
  /** A raw MCP result (from an upstream server); unwrapped by the spill rules, isError respected. */
  mcp?: CallToolResult;
  /** Files this call placed in outputs/. */
  attachments?: Attachment[];
  /** For delegating calls: the tool and arguments that really ran (kept in the execution record, not the history). */
  executed?: { tool: string; arguments: unknown; argsPath?: string; sha256?: string };
}

/** Who is calling and in which conversation; always from the request context, never from a tool argument. */
export interface ExecuteContext {
  conversationId: string;
  /** The caller's identity (MCP session, HTTP auth, library user), for records and policy. */
  caller?: string;
  signal?: AbortSignal;
  /** Asks the user to approve a call (MCP elicitation); wins over the host's `approve` option. */
  approve?: ApprovalHandler;
}

/** Where part of a delegating call's expanded arguments came from, for the approval prompt. */
export interface ArgumentSource {
  /** JSON Pointer into the expanded arguments ("" = the whole object). */
  pointer: string;
  /** "args/issue.json", "results/0012-get_issue.jsonl#/3/body", or "overrides" (values the model wrote). */
  from: string;
}

export interface ApprovalRequest {
  tool: string;
  /** The expanded arguments that will actually be sent. */
  arguments: unknown;
  /** The call as the model wrote it, when it differs (delegating calls). */
  calledAs?: { tool: string; arguments: unknown };
  /** Delegating calls: which file (or the model's overrides) each part of `arguments` came from; the most specific pointer wins. */
  sources?: ArgumentSource[];
  conversationId: string;
  /** The exact bytes that will be sent, their SHA-256, and where the full arguments are when too large to show (set by the host). */
  digest?: ApprovalDigest;
}

/** true approves; false (or a thrown error) declines. */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<boolean>;

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  conversationId: string;
  callId: string;
  caller: string | undefined;
  sandbox: ConversationSandbox;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  /**
   * Runs another tool on the model's behalf (delegating calls): validates the
   * arguments against its schema, applies permission and approval to them, runs
   * it and returns its raw output. Spill rules apply once, to the outer call.
   */
  invoke(tool: string, args: unknown, via: { argsPath?: string; sources?: ArgumentSource[] }): Promise<ToolOutput>;
  /** Registered tool names (for "did you mean" hints). */
  toolNames(): string[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** Where the tool comes from: "local" or the upstream server's name. */
  origin?: 'local' | { upstream: string };
  /** false: results stay inline (reread and file tools, whose results are small or are already files). */
  spill?: boolean;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

/** A tool call as the model wrote it. */
export interface ToolCall {
  name: string;
  arguments?: unknown;
  /** The caller's call id; one is generated when absent. */
  id?: string;
}
