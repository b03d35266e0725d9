import type { CallLogEntry, CallLogLevel } from './call-log.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Config } from '../config/schema.js';
import type { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { ApprovalHandler, ArgumentSource, DetectedSecret } from '../policy/approval.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import type { AdmissionBoard } from '../util/admission-board.js';

// The approval types belong to the policy (below the host); re-exported here, where tool authors look.
export type { ApprovalHandler, ApprovalRequest, ArgumentSource, DetectedSecret } from '../policy/approval.js';

/** A JSON Schema for a tool's arguments (an object schema). */
export type JsonSchema = Record<string, unknown> & { type?: 'object' };

/** A JSON Schema for a tool's result value (any type: a string, an object, ...). */
export type OutputSchema = Record<string, unknown>;

/** What a handler receives: the static type of a TypeBox schema; a plain object for a raw JSON Schema (upstream tools). */
export type ToolArguments<Input extends JsonSchema> = Input extends TSchema ? Static<Input> : Record<string, unknown>;

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
  /** A signed HTTP link to the file (GET, no header needed), when server.publicUrl is set. */
  downloadUrl?: string;
  /** When `downloadUrl` stops working (ISO 8601). */
  downloadExpiresAt?: string;
}

/** What a tool handler returns. */
export interface ToolOutput {
  /** The result: a string is text, anything else is JSON. */
  value?: unknown;
  /** A raw MCP result (from an upstream server); unwrapped by the spill rules, isError respected. */
  mcp?: CallToolResult;
  /** Files this call placed in outputs/. */
  attachments?: Attachment[];
  /** Sentences the host adds after what the model reads (a delegation whose arguments carried redacted values says so). */
  notes?: string[];
  /** For delegating calls: the tool and arguments that really ran (kept in the execution record, not the history). */
  executed?: { tool: string; arguments: unknown; argsPath?: string; sha256?: string };
}

/** Who is calling and in which conversation; always from the request context, never from a tool argument. */
export interface ExecuteContext {
  conversationId: string;
  /**
   * Who the conversation belongs to (from auth, or the library caller): its files are
   * `<root>/<principal>/<conversationId>/`. Default "local". Another principal never
   * reaches them, even with the same conversation id.
   */
  principal?: string;
  /** The caller's identity (MCP session, HTTP auth, library user), for records and policy. */
  caller?: string;
  signal?: AbortSignal;
  /** Asks the user to approve a call (MCP elicitation); wins over the host's `approve` option. */
  approve?: ApprovalHandler;
  /** Receives a long call's progress (queued, started, rows written); MCP sends it as notifications/progress. */
  onProgress?: (update: ProgressUpdate) => void;
  /** Receives what the call has to say as it runs and ends (spills, cuts, refusals, a tool's own messages); MCP sends it as notifications/message. */
  onLog?: (entry: CallLogEntry) => void;
}

/** How far a long call has got: `progress` only grows; `message` says what it is doing. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  conversationId: string;
  /** Who the conversation belongs to ("local" when nobody authenticated). */
  principal: string;
  callId: string;
  caller: string | undefined;
  sandbox: ConversationSandbox;
  config: Config;
  logger: Logger;
  signal: AbortSignal;
  /** The host's admission gates: a tool whose work can pile up waits for a slot in one. */
  queues: AdmissionBoard;
  /** Reports progress to the caller (does nothing when the caller did not ask for it). */
  progress(update: ProgressUpdate): void;
  /** Tells the caller something about this call as it runs (MCP notifications/message, at the level the client asked for); does nothing when nobody listens. */
  notify(level: CallLogLevel, message: string, data?: Record<string, unknown>): void;
  /**
   * Runs another tool on the model's behalf (delegating calls): validates the
   * arguments against its schema, applies permission and approval to them, runs
   * it and returns its raw output. Spill rules apply once, to the outer call.
   */
  invoke(tool: string, args: unknown, via: { argsPath?: string; sources?: ArgumentSource[]; secrets?: DetectedSecret[] }): Promise<ToolOutput>;
  /** Registered tool names (for "did you mean" hints). */
  toolNames(): string[];
  /** Why a tool that is not registered cannot be called now, when the host knows better than "not found" (an upstream still connecting). */
  explainMissingTool(name: string): SpillwayError | undefined;
}

/** MCP tool annotations (hints for clients). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A tool. Local tools are written with {@link defineTool} and a TypeBox
 * `inputSchema`, so the handler's `args` has the schema's type; the registry
 * holds them as `ToolDefinition` (the default, type-erased form).
 */
export interface ToolDefinition<Input extends JsonSchema = JsonSchema> {
  name: string;
  /**
   * What the model reads about the tool. A function when it depends on the
   * configuration (limits, the SQL dialect): the host calls it with the
   * running configuration each time tools are listed, and announces a change
   * after a reload (`tools-changed`, tools/list_changed over MCP).
   */
  description: string | ((config: Config) => string);
  /** Checked by the host (ajv) before the handler runs; listed as is in MCP tools/list. */
  inputSchema: Input;
  /**
   * The schema of the handler's `value` (a TypeBox schema or plain JSON Schema).
   * Over MCP a tool with one declares the structured-result envelope around it
   * (see host/structured-result.ts) and returns `structuredContent`.
   */
  outputSchema?: OutputSchema;
  /** Where the tool comes from: "local" or the upstream server's name. */
  origin?: 'local' | { upstream: string };
  /** false: results stay inline (reread and file tools, whose results are small or are already files). */
  spill?: boolean;
  /**
   * true: the results show what the conversation's files hold (read_file, query_files, a
   * script). While some tool's files keep original values (`screening.keep`), such a tool's
   * results are redacted whatever its own screening policy, so a kept original never reaches the model.
   */
  readsConversationFiles?: boolean;
  /**
   * true: the call can take long (a file build, a query, a script). Over MCP it is
   * listed with `execution.taskSupport: "optional"`, and a client that supports
   * tasks may run it as one (poll or be notified, cancel, fetch the result later).
   */
  longRunning?: boolean;
  /** A function when a hint depends on the configuration, resolved like `description`. */
  annotations?: ToolAnnotations | ((config: Config) => ToolAnnotations);
  // NoInfer: defineTool infers Input from inputSchema alone, never back from the handler.
  handler(args: ToolArguments<NoInfer<Input>>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

/** A tool as the host lists it: description and annotations resolved against the running configuration. */
export type ListedTool = Omit<ToolDefinition, 'description' | 'annotations'> & { description: string; annotations?: ToolAnnotations };

/** A tool call as the model wrote it. */
export interface ToolCall {
  name: string;
  arguments?: unknown;
  /** The caller's call id; one is generated when absent. */
  id?: string;
}
