import { EventEmitter } from 'node:events';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { assertConversationId, assertPrincipal, defaultPrincipal, type ConversationSandbox, type SandboxRoot } from '../sandbox/index.js';
import { presentResult, type SpillSettings } from '../spill/present-result.js';
import { preparePrefilter, screeningPolicy } from '../screening/index.js';
import type { SpillRef } from '../spill/spill-ref.js';
import type { SpillNumbers } from '../spill/write-spill.js';
import { unwrapValue } from '../spill/unwrap.js';
import { AdmissionBoard } from '../util/admission-board.js';
import type { GateTimers } from '../util/admission-gate.js';
import { mostSpecificMatch } from '../util/tool-pattern.js';
import { ExecutionRecordStore } from './execution-record.js';
import { listTool } from './list-tool.js';
import type { ApprovalHandler, ApprovalRequest, Attachment, ExecuteContext, ListedTool, ToolCall, ToolContext, ToolDefinition, ToolOutput } from './tool.js';
import { HostResources } from './host-resources.js';
import { PromptRegistry } from './prompts.js';
import { ToolRegistry } from './tool-registry.js';
import { authorizeCall, type Delegation, type ToolScope } from './authorize-call.js';
import type { ExecuteResult } from './execute-result.js';
import type { HostEvents } from './host-events.js';
import {
  runAfterSpillHooks,
  runOutputsHooks,
  type AfterSpillHook,
  type HealthCheck,
  type MissingToolExplainer,
  type OutputsHook,
  type OutputsWritten,
  type SpillWritten,
} from './host-hooks.js';
import { buildToolContext } from './tool-context.js';
import { runCall, type CallPipelineHost } from './call-pipeline.js';

export type { ExecuteResult } from './execute-result.js';
export type { CallFinished, FileJobEvent, HostEvents, SweepFinished } from './host-events.js';
export type { AfterSpillHook, HealthCheck, MissingToolExplainer, OutputsHook, OutputsWritten, SpillWritten } from './host-hooks.js';

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
  private readonly tools = new ToolRegistry(
    () => this.emit('tools-changed'),
    (tool, problem) => this.logger.warn({ tool, problem }, 'tool schema cannot be compiled; arguments will not be validated locally'),
  );
  /** Prompts clients offer their users (MCP prompts/list); spillway's own are registered by createHost. */
  readonly prompts = new PromptRegistry(() => this.emit('prompts-changed'));
  /** Resources an embedder offers beside each conversation's outputs (resources/list, read, subscribe). */
  readonly resources = new HostResources((uri) => this.emit('resource-updated', { uri }));
  private readonly records: ExecutionRecordStore;
  private readonly approve: ApprovalHandler | undefined;
  private readonly now: () => Date;
  private readonly spillNumbers: SpillNumbers | undefined;
  private readonly closers: (() => Promise<void> | void)[] = [];
  private readonly afterSpillHooks: AfterSpillHook[] = [];
  private readonly outputsHooks: OutputsHook[] = [];
  private readonly healthSources = new Map<string, () => unknown>();
  private readonly healthChecks = new Map<string, HealthCheck>();

  constructor(options: HostOptions) {
    super();
    // Every MCP session listens here (tools, attachments, files, prompts; capped by server.maxSessions), so Node's default of 10 would warn at the 11th.
    this.setMaxListeners(0);
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
    // Once a front is up, what every first spilled call would otherwise build: screening's prefilter.
    // On the next turn, so the banner and the front's first reads go first.
    this.once('serving', () => setImmediate(() => preparePrefilter()));
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
    const before = this.tools.configDependentListing(this.currentConfig);
    this.currentConfig = config;
    if (this.tools.configDependentListing(config) !== before) this.emit('tools-changed');
  }

  registerTool(tool: ToolDefinition): void {
    this.tools.register(tool);
  }

  unregisterTool(name: string): boolean {
    return this.tools.unregister(name);
  }

  /**
   * Compiles a registered tool's argument schema now rather than on its first call
   * (schemas are compiled lazily so a one-shot call compiles one). A served host's
   * services call it for tools whose first call should be quick, e.g. query_files.
   */
  prepareTool(name: string): void {
    this.tools.prepareValidator(name);
  }

  /**
   * Runs `change` (several registerTool / unregisterTool calls) and emits
   * `tools-changed` once after it, if it changed anything: an upstream that
   * connects with 40 tools sends its MCP clients one tools/list_changed, not 40.
   */
  changeTools(change: () => void): void {
    this.tools.change(change);
  }

  /** A registered tool as clients see it (description resolved against the running configuration). */
  getTool(name: string): ListedTool | undefined {
    const tool = this.tools.definition(name);
    return tool === undefined ? undefined : listTool(tool, this.currentConfig);
  }

  /** Every registered tool as clients see it (descriptions resolved against the running configuration). */
  listTools(): ListedTool[] {
    return this.tools.list(this.currentConfig);
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
    const toolDefault = this.tools.definition(toolName)?.spill;
    return {
      spill: override.spill ?? toolDefault ?? true,
      thresholdChars: override.thresholdChars ?? config.spill.thresholdChars,
      inlineMaxTokens: override.inlineMaxTokens ?? config.inline.maxTokens,
      bytesPerToken: config.inline.bytesPerToken,
      errorHeadChars: config.errors.headChars,
      errorTailChars: config.errors.tailChars,
      retentionDays: config.retention.days,
      screening: screeningPolicy(config, toolName, this.tools.definition(toolName)?.readsConversationFiles === true),
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

  private executeCall(call: ToolCall, context: ExecuteContext, unlisted?: ToolDefinition): Promise<ExecuteResult> {
    return runCall(this.pipeline, { call, context, ...(unlisted === undefined ? {} : { unlisted }) });
  }

  /** What the call pipeline (call-pipeline.ts) may use of this host. */
  private readonly pipeline: CallPipelineHost = {
    sandbox: () => this.sandbox,
    logger: () => this.logger,
    config: () => this.currentConfig,
    now: () => this.now(),
    spillNumbers: () => this.spillNumbers,
    spillSettings: (tool) => this.spillSettings(tool),
    definition: (tool) => this.tools.definition(tool),
    run: (input) => this.run(input.call, input.callId, input.context, input.sandbox, input.log, input.delegation, input.unlisted),
    afterSpill: (spill) => this.afterSpill(spill),
    afterOutputs: (outputs) => this.afterOutputs(outputs),
    record: (record) => this.records.append(record),
    emit: (event, ...args) => this.emit(event, ...(args as never)),
  };

  private afterOutputs(outputs: OutputsWritten): Promise<Attachment[]> {
    return runOutputsHooks(this.outputsHooks, outputs);
  }

  private afterSpill(spill: SpillWritten): Promise<void> {
    return runAfterSpillHooks(this.afterSpillHooks, spill);
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
    const tool = unlisted ?? this.tools.require(call.name);
    const args = call.arguments ?? {};
    if (unlisted === undefined) this.tools.validate(tool.name, args);
    const approved = await this.authorizeCall(tool, args, { callId, context, sandbox, delegation });
    this.spillNumbers?.assertAvailable?.();
    const toolContext = this.toolContext({ callId, call: { tool: tool.name, arguments: args }, context, sandbox, log, depth: 0, delegation });
    return await tool.handler(approved as Record<string, unknown>, toolContext);
  }

  private toolContext(scope: ToolScope): ToolContext {
    return buildToolContext(scope, {
      config: this.currentConfig,
      queues: this.queues,
      toolNames: () => this.tools.names(),
      explainMissingTool: (name) => this.tools.explainMissingTool(name),
      requireTool: (name) => this.tools.require(name),
      validate: (tool, args, argsPath) => this.tools.validate(tool, args, argsPath),
      authorize: (target, args, inScope, delegated) => this.authorizeCall(target, args, inScope, delegated),
    });
  }

  /**
   * Registers an explanation for calls to tools that are not registered:
   * the upstreams answer a call to a server still connecting with
   * UPSTREAM_UNAVAILABLE ("still connecting") rather than TOOL_NOT_FOUND.
   */
  onMissingTool(explain: MissingToolExplainer): void {
    this.tools.onMissingTool(explain);
  }

  private authorizeCall(
    tool: ToolDefinition,
    args: unknown,
    scope: Pick<ToolScope, 'callId' | 'context' | 'sandbox' | 'delegation'>,
    delegated: Pick<ApprovalRequest, 'calledAs' | 'sources' | 'secrets'> = {},
  ): Promise<unknown> {
    return authorizeCall({ config: this.currentConfig, approve: this.approve }, { tool, args, scope, delegated });
  }
}
