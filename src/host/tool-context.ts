import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { AdmissionBoard } from '../util/admission-board.js';
import type { ToolScope } from './authorize-call.js';
import type { ApprovalRequest, ToolContext, ToolDefinition, ToolOutput } from './tool.js';

/** What a tool's context needs of its host. */
export interface ToolContextHost {
  config: Config;
  queues: AdmissionBoard;
  toolNames(): string[];
  explainMissingTool(name: string): SpillwayError | undefined;
  requireTool(name: string): ToolDefinition;
  validate(tool: string, args: unknown, argsPath?: string): void;
  authorize(target: ToolDefinition, args: unknown, scope: ToolScope, delegated: Pick<ApprovalRequest, 'calledAs' | 'sources' | 'secrets'>): Promise<unknown>;
}

/**
 * The context a tool's handler runs with: its conversation, configuration,
 * logger and signal, and `invoke`, the delegating call's way to run another
 * tool (validated and authorized on the expanded arguments, one level deep).
 */
export function buildToolContext(scope: ToolScope, host: ToolContextHost): ToolContext {
  const { callId, context, sandbox, log, depth } = scope;
  return {
    conversationId: context.conversationId,
    principal: sandbox.principal,
    callId,
    caller: context.caller,
    sandbox,
    config: host.config,
    logger: log,
    signal: context.signal ?? new AbortController().signal,
    queues: host.queues,
    progress: context.onProgress ?? (() => undefined),
    notify: (level, message, data) => {
      if (context.onLog === undefined) return;
      try {
        context.onLog({ level, message: `${scope.call.tool}: ${message}`, data: { ...data, callId } });
      } catch {
        // A listener that throws never fails the tool.
      }
    },
    toolNames: () => host.toolNames(),
    explainMissingTool: (name) => host.explainMissingTool(name),
    invoke: async (name, args, via) => {
      if (depth > 0) {
        throw new SpillwayError('DELEGATION_LOOP', 'A delegated tool may not delegate again; call the target tool directly.', { tool: name });
      }
      const target = host.requireTool(name);
      const executed: NonNullable<ToolOutput['executed']> = {
        tool: name,
        arguments: args,
        ...(via.argsPath === undefined ? {} : { argsPath: via.argsPath }),
      };
      scope.delegation.executed = executed;
      host.validate(target.name, args, via.argsPath);
      const approved = await host.authorize(target, args, scope, {
        calledAs: scope.call,
        ...(via.sources === undefined ? {} : { sources: via.sources }),
        ...(via.secrets === undefined || via.secrets.length === 0 ? {} : { secrets: via.secrets }),
      });
      if (scope.delegation.approval !== undefined) executed.sha256 = scope.delegation.approval.executedSha256;
      const inner = buildToolContext({ ...scope, log: log.child({ delegatedTo: name }), depth: depth + 1 }, host);
      const output = await target.handler(approved as Record<string, unknown>, inner);
      return { ...output, executed };
    },
  };
}
