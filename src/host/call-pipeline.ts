import { randomUUID } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { SpillwayError, toSpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import {
  asDiskError,
  assertConversationId,
  assertPrincipal,
  defaultPrincipal,
  withoutHostPaths,
  type ConversationSandbox,
  type SandboxRoot,
} from '../sandbox/index.js';
import { screenMessage } from '../screening/index.js';
import { presentResult, type SpillSettings } from '../spill/present-result.js';
import { toScreeningCounts } from '../spill/spill-ref.js';
import type { SpillNumbers } from '../spill/write-spill.js';
import { unwrapMcpResult, unwrapValue, type Unwrapped } from '../spill/unwrap.js';
import type { Delegation } from './authorize-call.js';
import type { CallLogEntry } from './call-log.js';
import { callLogEntries } from './call-log-entries.js';
import type { ExecuteResult } from './execute-result.js';
import type { ExecutionRecord } from './execution-record.js';
import type { HostEvents } from './host-events.js';
import type { OutputsWritten, SpillWritten } from './host-hooks.js';
import type { Attachment, ExecuteContext, ToolCall, ToolDefinition, ToolOutput } from './tool.js';

/** What the call pipeline uses of its host (the Host passes its own state through these). */
export interface CallPipelineHost {
  sandbox(): SandboxRoot;
  logger(): Logger;
  /** The running configuration. */
  config(): Config;
  now(): Date;
  spillNumbers(): SpillNumbers | undefined;
  spillSettings(tool: string): SpillSettings;
  definition(tool: string): ToolDefinition | undefined;
  /** Finds, validates, authorizes and runs the tool (Host.run). */
  run(input: {
    call: ToolCall;
    callId: string;
    context: ExecuteContext;
    sandbox: ConversationSandbox;
    log: Logger;
    delegation: Delegation;
    unlisted?: ToolDefinition;
  }): Promise<ToolOutput>;
  afterSpill(spill: SpillWritten): Promise<void>;
  afterOutputs(outputs: OutputsWritten): Promise<Attachment[]>;
  record(record: ExecutionRecord): void;
  emit<K extends keyof HostEvents>(event: K, ...args: HostEvents[K]): boolean;
}

/**
 * One call, start to end: the conversation from the context, the tool run
 * (Host.run: find, validate, authorize, handler), its result unwrapped and
 * presented by the spill rules (written to files when large), the outputs'
 * download cards, the execution record, the log line and the `call` event.
 * Never throws for bad input: every failure is an error result with a code.
 */
export async function runCall(host: CallPipelineHost, input: { call: ToolCall; context: ExecuteContext; unlisted?: ToolDefinition }): Promise<ExecuteResult> {
  const { call, context, unlisted } = input;
  const callId = call.id ?? `call_${randomUUID()}`;
  const started = host.now();
  const startedAt = performance.now();
  const principal = context.principal ?? defaultPrincipal;
  const log = host.logger().child({ callId, conversationId: context.conversationId, principal, tool: call.name });
  let sandbox: ConversationSandbox;
  try {
    assertPrincipal(principal);
    assertConversationId(context.conversationId);
    sandbox = host.sandbox().conversation(context.conversationId, principal);
  } catch (error) {
    const failure = toSpillwayError(error);
    host.emit('call', { tool: call.name, outcome: 'error', errorCode: failure.code, durationMs: 0, files: [] });
    return {
      callId,
      tool: call.name,
      isError: true,
      text: failure.message,
      files: [],
      truncated: false,
      attachments: [],
      notes: [],
      error: failure.toJSON(),
      durationMs: 0,
    };
  }

  let output: ToolOutput | undefined;
  let failure: SpillwayError | undefined;
  // A delegated call's expanded arguments, known even when the target then fails (for the record).
  const delegation: Delegation = {};
  if (context.onLog !== undefined) tellCaller(context.onLog, [{ level: 'debug', message: `${call.name}: started`, data: { callId } }]);
  try {
    output = await host.run({ call, callId, context, sandbox, log, delegation, ...(unlisted === undefined ? {} : { unlisted }) });
  } catch (error) {
    // A file-system failure reaches the model coded (DISK_FULL, ...), and no message names a host folder.
    const coded = toSpillwayError(asDiskError(error, { base: sandbox.dir }), 'TOOL_FAILED');
    failure = withoutHostPaths(withoutHostPaths(coded, sandbox.dir), host.sandbox().root);
  }

  const executed = output?.executed ?? delegation.executed;
  const executedTool = executed?.tool ?? call.name;
  const unwrapped: Unwrapped =
    failure !== undefined
      ? { kind: 'text', text: failure.message, binaries: [] }
      : output?.mcp !== undefined
        ? unwrapMcpResult(output.mcp)
        : unwrapValue(output?.value ?? '');
  let isError = failure !== undefined || output?.mcp?.isError === true;
  // Let a large raw upstream result be collected once it is unwrapped, instead of holding it twice until the call ends.
  if (output?.mcp !== undefined) output = { ...output, mcp: { content: [], isError } };
  if (isError && failure === undefined && output?.mcp !== undefined) {
    failure = new SpillwayError('UPSTREAM_ERROR', textOf(unwrapped));
  }

  const settings = host.spillSettings(executedTool);
  const present = (result: Unwrapped, asError: boolean) =>
    presentResult({
      sandbox,
      tool: executedTool,
      callId,
      result,
      isError: asError,
      settings,
      now: started,
      ...(host.spillNumbers() === undefined ? {} : { numbers: host.spillNumbers() }),
      onSpillFailure: (error) => log.warn({ err: error }, 'spill failed; returning the result without a path'),
    });
  let view: Awaited<ReturnType<typeof present>>;
  try {
    view = await present(unwrapped, isError);
  } catch (error) {
    // A result that cannot be presented (nested too deeply to walk) fails the call with a coded error; execute never throws.
    failure = toSpillwayError(error, 'INTERNAL');
    isError = true;
    view = await present({ kind: 'text', text: failure.message, binaries: [] }, true);
  }
  const written = view.spill === undefined ? view.files : [view.spill, ...view.files];
  if (written.length > 0) await host.afterSpill({ sandbox, files: written, config: host.config(), logger: log });

  const durationMs = performance.now() - startedAt;
  const producer = unlisted ?? host.definition(executedTool);
  const attachments = await host.afterOutputs({
    sandbox,
    tool: { name: executedTool, ...(producer?.origin === undefined ? {} : { origin: producer.origin }) },
    ...(executedTool === call.name ? {} : { calledAs: call.name }),
    attachments: output?.attachments ?? [],
    config: host.config(),
    logger: log,
  });
  const { files, truncated } = view;
  const extra = output?.notes ?? [];
  const text = extra.length === 0 ? view.text : `${view.text}\n\n${extra.map((note) => `[spillway] ${note}`).join('\n')}`;
  const notes = [...view.notes, ...extra];
  const result: ExecuteResult = { callId, tool: call.name, isError, text, files, truncated, attachments, notes, durationMs };
  if (view.spill !== undefined) result.spill = view.spill;
  if (view.value !== undefined) result.value = view.value;
  const screening = view.screening === undefined ? undefined : toScreeningCounts(view.screening);
  if (screening !== undefined) result.screening = screening;
  if (failure !== undefined) {
    // Screened as the result's text was: the message also reaches the caller's log notifications and the CLI.
    const message = screenMessage(failure.message, settings.screening).slice(0, 2000);
    result.error = { code: failure.code, message, ...(failure.details ? { details: failure.details } : {}) };
  }

  host.record({
    callId,
    conversationId: context.conversationId,
    principal,
    ...(context.caller === undefined ? {} : { caller: context.caller }),
    tool: call.name,
    arguments: call.arguments ?? {},
    ...(executed === undefined ? {} : { executed }),
    ...(delegation.approval === undefined ? {} : { approval: delegation.approval }),
    startedAt: started.toISOString(),
    durationMs: Math.round(durationMs * 1000) / 1000,
    outcome: isError ? 'error' : 'ok',
    ...(failure === undefined ? {} : { errorCode: failure.code }),
    ...(view.spill === undefined ? {} : { spillPath: view.spill.path }),
    ...(attachments.length === 0 ? {} : { attachments: attachments.map((attachment) => attachment.path) }),
    ...(screening === undefined ? {} : { screening }),
  });
  log.info(
    {
      outcome: isError ? 'error' : 'ok',
      errorCode: failure?.code,
      durationMs: Math.round(durationMs),
      spillPath: view.spill?.path,
      truncated: view.truncated,
    },
    'tool call',
  );
  for (const attachment of attachments) host.emit('attachment', { conversationId: context.conversationId, principal, attachment });
  for (const file of written) host.emit('file-changed', { conversationId: context.conversationId, principal, path: file.path, change: 'written' });
  if (context.onLog !== undefined) tellCaller(context.onLog, callLogEntries(result));
  host.emit('call', {
    tool: call.name,
    outcome: isError ? 'error' : 'ok',
    ...(failure === undefined ? {} : { errorCode: failure.code }),
    durationMs,
    files: written,
    ...(screening === undefined ? {} : { screening }),
  });
  return result;
}

/** A result as text, for an error message: its own text, the JSON it came as, or its serialization. */
function textOf(unwrapped: Unwrapped): string {
  if (unwrapped.kind === 'text') return unwrapped.text;
  if (unwrapped.source !== undefined) return unwrapped.source;
  try {
    return JSON.stringify(unwrapped.value);
  } catch {
    return '[the error result is nested too deeply to show]';
  }
}

function tellCaller(onLog: NonNullable<ExecuteContext['onLog']>, entries: readonly CallLogEntry[]): void {
  for (const entry of entries) {
    try {
      onLog(entry);
    } catch {
      // A listener that throws never changes the result.
    }
  }
}
