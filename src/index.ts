/**
 * spillway: a tool-execution host that keeps model output out of the data's path.
 * The MCP front is in `spillway/mcp`, the CLI in `spillway/cli`.
 */
export { createHost, type CreateHostOptions } from './runtime/create-host.js';
export { Host, type ExecuteResult, type HostOptions, type AfterSpillHook, type SpillWritten } from './host/host.js';
export { defineTool } from './host/define-tool.js';
export type {
  ToolDefinition,
  ToolOutput,
  ToolContext,
  ToolCall,
  ExecuteContext,
  ProgressUpdate,
  Attachment,
  ApprovalHandler,
  ApprovalRequest,
  ArgumentSource,
  JsonSchema,
  ListedTool,
  ToolAnnotations,
  ToolArguments,
} from './host/tool.js';
export type { PromptDefinition, PromptArgument, PromptContext, PromptMessage } from './host/prompts.js';
export type { HostResource } from './host/host-resources.js';
export type { CallLogEntry, CallLogLevel } from './host/call-log.js';
export type { FileChanged, HostEvents } from './host/host-events.js';
export { describeApproval } from './policy/describe-approval.js';
export { loadConfig, validateConfig, type LoadConfigOptions } from './config/load-config.js';
export type { Config } from './config/schema.js';
export { SpillwayError, errorCodes, isRetryable, retryableErrors, type ErrorCode, type SerializedError } from './errors.js';
export type { SpillRef, SpillMeta } from './spill/spill-ref.js';
export type { GateStats, GateTimers } from './util/admission-gate.js';
