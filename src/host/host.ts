import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { SpillwayError, toSpillwayError, type SerializedError } from '../errors.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { approvedArguments, digestForApproval, sha256Hex } from '../policy/approval-digest.js';
import { authorize, decide, stricter } from '../policy/authorize.js';
import {
  asDiskError,
  assertConversationId,
  assertPrincipal,
  defaultPrincipal,
  withoutHostPaths,
  type ConversationSandbox,
  type SandboxRoot,
} from '../sandbox/index.js';
import { presentResult, type SpillSettings } from '../spill/present-result.js';
import { screeningPolicy } from '../screening/index.js';
import { toScreeningCounts, type ScreeningCounts, type SpillRef } from '../spill/spill-ref.js';
import type { SpillNumbers } from '../spill/write-spill.js';
import { unwrapMcpResult, unwrapValue, type Unwrapped } from '../spill/unwrap.js';
import { AdmissionBoard } from '../util/admission-board.js';
import type { GateTimers } from '../util/admission-gate.js';
import { closeNames } from '../util/close-names.js';
import { mostSpecificMatch } from '../util/tool-pattern.js';
import { ExecutionRecordStore, type ExecutionRecord } from './execution-record.js';
import { listingDependsOnConfig, listTool } from './list-tool.js';
import type { ApprovalHandler, ApprovalRequest, Attachment, ExecuteContext, ListedTool, ToolCall, ToolContext, ToolDefinition, ToolOutput } from './tool.js';
import { ArgumentValidator } from './validate-arguments.js';

/** What `execute` returns: what the model reads plus machine-readable facts. */
export interface ExecuteResult {
  callId: string;
  tool: string;
  isError: boolean;
  /** The text the model reads (result or whole-record prefix, then file references). */
  text: string;
  /** The spilled file, when the result was written to one. */
  spill?: SpillRef;
  /** Binary blocks (images, audio) written as files. */
  files: SpillRef[];
  /** True when `text` shows only part of the result. */
  truncated: boolean;
  /** The result (JSON value, or the text) when the model sees it whole. */
  value?: unknown;
  /** The host's own sentences in `text`: how much of the result is shown, where the file is. */
  notes: string[];
  /** Files the call placed in outputs/ (download cards). */
  attachments: Attachment[];
  /** What screening found in the result (secrets redacted or flagged, injected instructions, invisible Unicode). */
  screening?: ScreeningCounts;
  error?: SerializedError;
  durationMs: number;
}

export interface HostOptions {
  config: Config;
  sandbox: SandboxRoot;
  logger?: Logger;
  /** Library approval callback for tools the policy marks `ask`. */
  approve?: ApprovalHandler;
  /** Clock, injectable for tests. */
  now?: () => Date;
  /** Spill numbers shared with the other replicas of a fleet (coordination.redis); without it, this process numbers its own. */
  spillNumbers?: SpillNumbers;
  /** Timers of the admission queues' waiting deadlines, injectable for tests. */
  queueTimers?: GateTimers;
}

/** Filled by ToolContext.invoke: what a delegating call really ran, and what the user approved. */
interface Delegation {
  executed?: NonNullable<ToolOutput['executed']>;
  approval?: ExecutionRecord['approval'];
}

/** Everything a ToolContext is built from. */
interface ToolScope {
  callId: string;
  /** The call as the model wrote it (the `calledAs` of a delegated approval). */
  call: { tool: string; arguments: unknown };
  context: ExecuteContext;
  sandbox: ConversationSandbox;
  log: Logger;
  depth: number;
  delegation: Delegation;
}

/** What an after-spill hook learns about one call whose result was written to files. */
export interface SpillWritten {
  /** The conversation the files were written in. */
  sandbox: ConversationSandbox;
  /** The spilled result and its binary parts, just written (paths relative to the conversation folder). */
  files: SpillRef[];
  /** The running configuration (a quota reads its limits here, so a reload applies). */
  config: Config;
  logger: Logger;
}

/** What an outputs hook learns about one call that placed files in outputs/. */
export interface OutputsWritten {
  sandbox: ConversationSandbox;
  /** The tool that produced the files: for a delegating call, the target that ran. */
  tool: { name: string; origin?: 'local' | { upstream: string } };
  /** The tool the model called, when that was a delegating call to `tool`. */
  calledAs?: string;
  /** The download cards, as the tool (or an earlier hook) made them. */
  attachments: Attachment[];
  /** The running configuration (read it here, so a reload applies). */
  config: Config;
  logger: Logger;
}

/**
 * Work a higher layer does on a call's outputs before the call returns; it
 * returns the cards to hand out (downloads records the producing tool and adds a signed link).
 */
export type OutputsHook = (outputs: OutputsWritten) => Promise<Attachment[]> | Attachment[];

/** One health check: resolves when this replica can serve, throws (with a reason) when not. */
export type HealthCheck = () => Promise<void>;

/** Work a higher layer does after a spill, before the call returns (retention's disk quota registers one). */
export type AfterSpillHook = (spill: SpillWritten) => Promise<void> | void;

/** Explains a call to a tool that is not registered (yet), with a better error than TOOL_NOT_FOUND; undefined when it cannot. */
export type MissingToolExplainer = (name: string) => SpillwayError | undefined;

/** One finished call, as operators count it (metrics subscribe to the `call` event). */
export interface CallFinished {
  tool: string;
  outcome: 'ok' | 'error';
  errorCode?: string;
  durationMs: number;
  /** Files the call's result was written to (the spill and its binary parts). */
  files: readonly SpillRef[];
  /** What screening found in the result. */
  screening?: ScreeningCounts;
}

/** A file-building job on the worker pool: submitted, started on a thread, finished (emitted by the file tools). */
export type FileJobEvent =
  | { phase: 'queued'; kind: string }
  | { phase: 'started'; kind: string; waitMs: number }
  | { phase: 'finished'; kind: string; outcome: 'ok' | 'failed'; started: boolean; errorCode?: string; runMs?: number; totalMs: number };

/** A retention sweep that ended (emitted by retention's scheduler). */
export interface SweepFinished {
  outcome: 'ok' | 'locked' | 'failed';
  durationMs?: number;
  filesRemoved: number;
  bytesRemoved: number;
}

export interface HostEvents {
  /** A tool was added or removed, or a configuration change altered how a tool is listed (its description). */
  'tools-changed': [];
  /** A file appeared in a conversation's outputs/ (a tool's export, or any other route: see src/watch/). */
  attachment: [{ conversationId: string; principal: string; attachment: Attachment }];
  call: [CallFinished];
  'file-job': [FileJobEvent];
  sweep: [SweepFinished];
}

/**
 * The tool-execution host: a registry of tools and the pipeline every call
 * goes through (validate, authorize, run, spill, record).
 */
export class Host extends EventEmitter<HostEvents> {
  readonly sandbox: SandboxRoot;
  readonly logger: Logger;
  /** Admission control: the caps on work that can pile up (exports, queries, upstream calls), shown in /healthz. */
  readonly queues: AdmissionBoard;
  private currentConfig: Config;
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly validator = new ArgumentValidator((tool, problem) =>
    this.logger.warn({ tool, problem }, 'tool schema cannot be compiled; arguments will not be validated locally'),
  );
  private readonly records: ExecutionRecordStore;
  private readonly approve: ApprovalHandler | undefined;
  private readonly now: () => Date;
  private readonly spillNumbers: SpillNumbers | undefined;
  private readonly closers: (() => Promise<void> | void)[] = [];
  private readonly afterSpillHooks: AfterSpillHook[] = [];
  private readonly outputsHooks: OutputsHook[] = [];
  private readonly healthSources = new Map<string, () => unknown>();
  private readonly healthChecks = new Map<string, HealthCheck>();
  private readonly missingToolExplainers: MissingToolExplainer[] = [];
  private toolChangesHeld = 0;
  private toolsChangedWhileHeld = false;

  constructor(options: HostOptions) {
    super();
    this.currentConfig = options.config;
    this.sandbox = options.sandbox;
    this.logger = options.logger ?? silentLogger();
    this.approve = options.approve;
    this.now = options.now ?? (() => new Date());
    this.spillNumbers = options.spillNumbers;
    this.queues = new AdmissionBoard(options.queueTimers === undefined ? {} : { timers: options.queueTimers });
    this.setHealthSource('queues', () => this.queues.report());
    this.records = new ExecutionRecordStore(path.join(options.config.data.dir, 'records.jsonl'), options.config.records.maxArgsBytes, {
      onEpisode: (episode) => {
        if (episode.kind === 'start')
          // Once per episode, not per record: /healthz "records" counts them.
          this.logger.warn({ err: episode.error, until: 'the file is writable again' }, 'execution record could not be written');
        else this.logger.warn({ dropped: episode.dropped }, 'execution record written again after dropping records');
      },
    });
    this.setHealthSource('records', () => this.records.health());
  }

  get config(): Config {
    return this.currentConfig;
  }

  /**
   * Applies a new (validated) configuration to later calls: thresholds,
   * policy, caps. When a tool's description depends on the configuration and
   * now reads differently, `tools-changed` is emitted (MCP clients get
   * tools/list_changed).
   */
  updateConfig(config: Config): void {
    const before = this.configDependentListing();
    this.currentConfig = config;
    if (this.configDependentListing() !== before) this.emit('tools-changed');
  }

  registerTool(tool: ToolDefinition): void {
    if (this.tools.has(tool.name)) throw new SpillwayError('TOOL_EXISTS', `A tool named ${tool.name} is already registered.`, { tool: tool.name });
    this.validator.register(tool.name, tool.inputSchema);
    this.tools.set(tool.name, tool);
    this.toolsChanged();
  }

  unregisterTool(name: string): boolean {
    const removed = this.tools.delete(name);
    this.validator.forget(name);
    if (removed) this.toolsChanged();
    return removed;
  }

  /**
   * Runs `change` (several registerTool / unregisterTool calls) and emits
   * `tools-changed` once after it, if it changed anything: an upstream that
   * connects with 40 tools sends its MCP clients one tools/list_changed, not 40.
   */
  changeTools(change: () => void): void {
    this.toolChangesHeld += 1;
    try {
      change();
    } finally {
      this.toolChangesHeld -= 1;
      if (this.toolChangesHeld === 0 && this.toolsChangedWhileHeld) {
        this.toolsChangedWhileHeld = false;
        this.emit('tools-changed');
      }
    }
  }

  private toolsChanged(): void {
    if (this.toolChangesHeld > 0) this.toolsChangedWhileHeld = true;
    else this.emit('tools-changed');
  }

  /** A registered tool as clients see it (description resolved against the running configuration). */
  getTool(name: string): ListedTool | undefined {
    const tool = this.tools.get(name);
    return tool === undefined ? undefined : listTool(tool, this.currentConfig);
  }

  /** Every registered tool as clients see it (descriptions resolved against the running configuration). */
  listTools(): ListedTool[] {
    return [...this.tools.values()].map((tool) => listTool(tool, this.currentConfig));
  }

  /** Adds a named section to the health report (upstreams, pool, last sweep, ...). */
  setHealthSource(name: string, source: () => unknown): void {
    this.healthSources.set(name, source);
  }

  /** The health report served at /healthz. */
  health(): Record<string, unknown> {
    const report: Record<string, unknown> = { status: 'ok', tools: this.tools.size };
    for (const [name, source] of this.healthSources) {
      try {
        report[name] = source();
      } catch (error) {
        report[name] = { error: (error as Error).message };
      }
    }
    return report;
  }

  /**
   * Adds a check that this replica can serve (the coordination store answers, ...):
   * it resolves when fine and throws, with a message for operators, when not.
   * /healthz and /readyz run every check.
   */
  setHealthCheck(name: string, check: HealthCheck): void {
    this.healthChecks.set(name, check);
  }

  /** The registered checks, by name (the HTTP front runs them with its own probes). */
  listHealthChecks(): [string, HealthCheck][] {
    return [...this.healthChecks];
  }

  /** Registers work to do on close (pools, watchers, upstream clients), run in reverse order. */
  onClose(closer: () => Promise<void> | void): void {
    this.closers.push(closer);
  }

  /**
   * Registers work to run after a call's result was written to files and
   * before the call returns: retention's disk quota evicts old files here.
   * Hooks run one after another in the order registered; a hook that throws
   * is logged and never fails the call. Returns a function that removes it.
   */
  onAfterSpill(hook: AfterSpillHook): () => void {
    this.afterSpillHooks.push(hook);
    return () => {
      const index = this.afterSpillHooks.indexOf(hook);
      if (index >= 0) this.afterSpillHooks.splice(index, 1);
    };
  }

  /**
   * Registers work to run on a call's download cards before the call returns
   * (the downloads route records which tool produced each file and adds a
   * signed link). Hooks run in the order registered, each given the cards the
   * one before returned; a hook that throws is logged and its cards are left
   * as they were. Returns a function that removes it.
   */
  onOutputs(hook: OutputsHook): () => void {
    this.outputsHooks.push(hook);
    return () => {
      const index = this.outputsHooks.indexOf(hook);
      if (index >= 0) this.outputsHooks.splice(index, 1);
    };
  }

  async close(): Promise<void> {
    for (const closer of this.closers.splice(0).reverse()) {
      try {
        await closer();
      } catch (error) {
        this.logger.warn({ err: error }, 'error while closing');
      }
    }
    await this.records.close();
  }

  /** The spill rules for one tool: config, per-pattern overrides, the tool's own default. */
  spillSettings(toolName: string): SpillSettings {
    const config = this.currentConfig;
    const override = mostSpecificMatch(config.spill.tools, toolName) ?? {};
    const toolDefault = this.tools.get(toolName)?.spill;
    return {
      spill: override.spill ?? toolDefault ?? true,
      thresholdChars: override.thresholdChars ?? config.spill.thresholdChars,
      inlineMaxTokens: override.inlineMaxTokens ?? config.inline.maxTokens,
      bytesPerToken: config.inline.bytesPerToken,
      errorHeadChars: config.errors.headChars,
      errorTailChars: config.errors.tailChars,
      retentionDays: config.retention.days,
      screening: screeningPolicy(config, toolName),
    };
  }

  /**
   * Executes one call in a conversation. Never throws for bad input: every
   * failure becomes an error result with a coded message (and a spilled error
   * file when the text is long).
   */
  async execute(call: ToolCall, context: ExecuteContext): Promise<ExecuteResult> {
    return this.executeCall(call, context);
  }

  /**
   * Runs a tool the host does not list (an embedding framework's own tool, see
   * spillway/ai-sdk) through the same pipeline: policy, spill rules, record.
   * Its arguments were validated by its owner, so they are not validated again.
   */
  async executeUnlisted(tool: ToolDefinition, call: ToolCall, context: ExecuteContext): Promise<ExecuteResult> {
    return this.executeCall(call, context, tool);
  }

  /**
   * Writes a result that did not go through `execute` (one already in a
   * conversation's history, for the context guard) to the sandbox by the spill
   * rules, whatever its size; the after-spill hooks (disk quota) run as for a
   * call. Returns the file's facts, or undefined when it could not be written (logged).
   */
  /** The shared spill numbers when there are some and their store is connected now. */
  private sharedNumbersNow(): SpillNumbers | undefined {
    try {
      this.spillNumbers?.assertAvailable?.();
      return this.spillNumbers;
    } catch {
      return undefined;
    }
  }

  async spillValue(input: {
    conversationId: string;
    /** Default "local". */
    principal?: string;
    tool: string;
    callId: string;
    value: unknown;
    isError?: boolean;
  }): Promise<SpillRef | undefined> {
    const principal = input.principal ?? defaultPrincipal;
    assertPrincipal(principal);
    assertConversationId(input.conversationId);
    const sandbox = this.sandbox.conversation(input.conversationId, principal);
    const log = this.logger.child({ conversationId: input.conversationId, principal, tool: input.tool, callId: input.callId });
    const isError = input.isError === true;
    const text = typeof input.value === 'string' ? input.value : JSON.stringify(input.value);
    const view = await presentResult({
      sandbox,
      tool: input.tool,
      callId: input.callId,
      result: isError ? { kind: 'text', text, binaries: [] } : unwrapValue(input.value),
      isError,
      settings: { ...this.spillSettings(input.tool), spill: true, thresholdChars: 0 },
      now: this.now(),
      // Shared numbers while the store answers; without it, numbers from the files: the publish's
      // link() skips a name another replica took meanwhile, and a result already in the history
      // is never refused for a coordination fault.
      ...(this.sharedNumbersNow() === undefined ? {} : { numbers: this.spillNumbers }),
      onSpillFailure: (error) => log.warn({ err: error }, 'spill failed; the result stays where it was'),
    });
    const written = view.spill === undefined ? view.files : [view.spill, ...view.files];
    if (written.length > 0) await this.afterSpill({ sandbox, files: written, config: this.currentConfig, logger: log });
    return view.spill;
  }

  private async executeCall(call: ToolCall, context: ExecuteContext, unlisted?: ToolDefinition): Promise<ExecuteResult> {
    const callId = call.id ?? `call_${randomUUID()}`;
    const started = this.now();
    const startedAt = performance.now();
    const principal = context.principal ?? defaultPrincipal;
    const log = this.logger.child({ callId, conversationId: context.conversationId, principal, tool: call.name });
    let sandbox: ConversationSandbox;
    try {
      assertPrincipal(principal);
      assertConversationId(context.conversationId);
      sandbox = this.sandbox.conversation(context.conversationId, principal);
    } catch (error) {
      const failure = toSpillwayError(error);
      this.emit('call', { tool: call.name, outcome: 'error', errorCode: failure.code, durationMs: 0, files: [] });
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
    try {
      output = await this.run(call, callId, context, sandbox, log, delegation, unlisted);
    } catch (error) {
      // A file-system failure reaches the model coded (DISK_FULL, ...), and no message names a host folder.
      const coded = toSpillwayError(asDiskError(error, { base: sandbox.dir }), 'TOOL_FAILED');
      failure = withoutHostPaths(withoutHostPaths(coded, sandbox.dir), this.sandbox.root);
    }

    const executed = output?.executed ?? delegation.executed;
    const executedTool = executed?.tool ?? call.name;
    const unwrapped: Unwrapped =
      failure !== undefined
        ? { kind: 'text', text: failure.message, binaries: [] }
        : output?.mcp !== undefined
          ? unwrapMcpResult(output.mcp)
          : unwrapValue(output?.value ?? '');
    const isError = failure !== undefined || output?.mcp?.isError === true;
    // Let a large raw upstream result be collected once it is unwrapped, instead of holding it twice until the call ends.
    if (output?.mcp !== undefined) output = { ...output, mcp: { content: [], isError } };
    if (isError && failure === undefined && output?.mcp !== undefined) {
      failure = new SpillwayError('UPSTREAM_ERROR', unwrapped.kind === 'text' ? unwrapped.text : JSON.stringify(unwrapped.value));
    }

    const view = await presentResult({
      sandbox,
      tool: executedTool,
      callId,
      result: unwrapped,
      isError,
      settings: this.spillSettings(executedTool),
      now: started,
      ...(this.spillNumbers === undefined ? {} : { numbers: this.spillNumbers }),
      onSpillFailure: (error) => log.warn({ err: error }, 'spill failed; returning the result without a path'),
    });
    const written = view.spill === undefined ? view.files : [view.spill, ...view.files];
    if (written.length > 0) await this.afterSpill({ sandbox, files: written, config: this.currentConfig, logger: log });

    const durationMs = performance.now() - startedAt;
    const producer = unlisted ?? this.tools.get(executedTool);
    const attachments = await this.afterOutputs({
      sandbox,
      tool: { name: executedTool, ...(producer?.origin === undefined ? {} : { origin: producer.origin }) },
      ...(executedTool === call.name ? {} : { calledAs: call.name }),
      attachments: output?.attachments ?? [],
      config: this.currentConfig,
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
    if (failure !== undefined)
      result.error = { code: failure.code, message: failure.message.slice(0, 2000), ...(failure.details ? { details: failure.details } : {}) };

    this.records.append({
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
    for (const attachment of attachments) this.emit('attachment', { conversationId: context.conversationId, principal, attachment });
    this.emit('call', {
      tool: call.name,
      outcome: isError ? 'error' : 'ok',
      ...(failure === undefined ? {} : { errorCode: failure.code }),
      durationMs,
      files: written,
      ...(screening === undefined ? {} : { screening }),
    });
    return result;
  }

  /** The listing of the tools whose description depends on the configuration, to compare across a reload. */
  private configDependentListing(): string {
    const dependent = [...this.tools.values()].filter(listingDependsOnConfig).map((tool) => listTool(tool, this.currentConfig));
    return JSON.stringify(dependent.map(({ name, description, annotations }) => [name, description, annotations]));
  }

  private async afterOutputs(outputs: OutputsWritten): Promise<Attachment[]> {
    let cards = outputs.attachments;
    if (cards.length === 0) return cards;
    for (const hook of [...this.outputsHooks]) {
      try {
        cards = await hook({ ...outputs, attachments: cards });
      } catch (error) {
        outputs.logger.warn({ err: error }, 'an outputs hook failed; the download cards were kept as they were');
      }
    }
    return cards;
  }

  private async afterSpill(spill: SpillWritten): Promise<void> {
    for (const hook of [...this.afterSpillHooks]) {
      try {
        await hook(spill);
      } catch (error) {
        spill.logger.warn({ err: error }, 'an after-spill hook failed; the result was kept');
      }
    }
  }

  private async run(
    call: ToolCall,
    callId: string,
    context: ExecuteContext,
    sandbox: ConversationSandbox,
    log: Logger,
    delegation: Delegation,
    unlisted?: ToolDefinition,
  ): Promise<ToolOutput> {
    const tool = unlisted ?? this.requireTool(call.name);
    const args = call.arguments ?? {};
    if (unlisted === undefined) this.validator.validate(tool.name, args);
    const approved = await this.authorizeCall(tool, args, { callId, context, sandbox, delegation });
    this.spillNumbers?.assertAvailable?.();
    const toolContext = this.toolContext({ callId, call: { tool: tool.name, arguments: args }, context, sandbox, log, depth: 0, delegation });
    return await tool.handler(approved as Record<string, unknown>, toolContext);
  }

  private toolContext(scope: ToolScope): ToolContext {
    const { callId, context, sandbox, log, depth } = scope;
    return {
      conversationId: context.conversationId,
      principal: sandbox.principal,
      callId,
      caller: context.caller,
      sandbox,
      config: this.currentConfig,
      logger: log,
      signal: context.signal ?? new AbortController().signal,
      queues: this.queues,
      progress: context.onProgress ?? (() => undefined),
      toolNames: () => [...this.tools.keys()],
      explainMissingTool: (name) => this.explainMissingTool(name),
      invoke: async (name, args, via) => {
        if (depth > 0) {
          throw new SpillwayError('DELEGATION_LOOP', 'A delegated tool may not delegate again; call the target tool directly.', { tool: name });
        }
        const target = this.requireTool(name);
        const executed: NonNullable<ToolOutput['executed']> = {
          tool: name,
          arguments: args,
          ...(via.argsPath === undefined ? {} : { argsPath: via.argsPath }),
        };
        scope.delegation.executed = executed;
        this.validator.validate(target.name, args, via.argsPath);
        const approved = await this.authorizeCall(target, args, scope, {
          calledAs: scope.call,
          ...(via.sources === undefined ? {} : { sources: via.sources }),
          ...(via.secrets === undefined || via.secrets.length === 0 ? {} : { secrets: via.secrets }),
        });
        if (scope.delegation.approval !== undefined) executed.sha256 = scope.delegation.approval.executedSha256;
        const inner = this.toolContext({ ...scope, log: log.child({ delegatedTo: name }), depth: depth + 1 });
        const output = await target.handler(approved as Record<string, unknown>, inner);
        return { ...output, executed };
      },
    };
  }

  /**
   * Registers an explanation for calls to tools that are not registered:
   * the upstreams answer a call to a server still connecting with
   * UPSTREAM_UNAVAILABLE ("still connecting") rather than TOOL_NOT_FOUND.
   */
  onMissingTool(explain: MissingToolExplainer): void {
    this.missingToolExplainers.push(explain);
  }

  private explainMissingTool(name: string): SpillwayError | undefined {
    for (const explain of this.missingToolExplainers) {
      const error = explain(name);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  private requireTool(name: string): ToolDefinition {
    const tool = this.tools.get(name);
    if (tool !== undefined) return tool;
    const explained = this.explainMissingTool(name);
    if (explained !== undefined) throw explained;
    const similar = closeNames(name, this.tools.keys());
    const hint = similar.length > 0 ? ` Did you mean: ${similar.join(', ')}?` : ` Available tools: ${[...this.tools.keys()].slice(0, 40).join(', ')}.`;
    throw new SpillwayError('TOOL_NOT_FOUND', `There is no tool named ${JSON.stringify(name)}.${hint}`, { tool: name, similar });
  }

  /**
   * Applies the policy. For `ask`, the arguments' bytes are digested once
   * (and saved under outputs/ when too large to show); the call then runs with
   * the arguments parsed back from exactly those bytes, so what was approved
   * is what is sent. Returns the arguments to run with.
   */
  private async authorizeCall(
    tool: ToolDefinition,
    args: unknown,
    scope: Pick<ToolScope, 'callId' | 'context' | 'sandbox' | 'delegation'>,
    delegated: Pick<ApprovalRequest, 'calledAs' | 'sources' | 'secrets'> = {},
  ): Promise<unknown> {
    const { context } = scope;
    const request: ApprovalRequest = { tool: tool.name, arguments: args, conversationId: context.conversationId, ...delegated };
    // Secrets detected in a delegating call's arguments raise the decision (screening.delegation).
    const atLeast = delegated.secrets === undefined ? undefined : this.currentConfig.screening.delegation;
    const asks = stricter(decide(this.currentConfig.policy, tool), atLeast) === 'ask' && (context.approve !== undefined || this.approve !== undefined);
    if (asks) request.digest = await digestForApproval({ arguments: args, callId: scope.callId, tool: tool.name, sandbox: scope.sandbox });
    const approvers = [context.approve, this.approve];
    await authorize({ policy: this.currentConfig.policy, tool, request, approvers, ...(atLeast === undefined ? {} : { atLeast }) });
    if (request.digest === undefined) return args;
    const { sha256, bytes, shownInFull, argumentsFile } = request.digest;
    const approved = approvedArguments(request.digest);
    // What runs is parsed from the approved bytes; its digest is checked once more, not assumed.
    const executedSha256 = sha256Hex(JSON.stringify(approved));
    if (executedSha256 !== sha256) {
      throw new SpillwayError('APPROVAL_DECLINED', `The arguments for ${tool.name} changed after they were approved; the call was not run.`, {
        tool: tool.name,
        reason: 'changed',
      });
    }
    scope.delegation.approval = { sha256, executedSha256, bytes, shownInFull, ...(argumentsFile === undefined ? {} : { argumentsFile }) };
    return approved;
  }
}
