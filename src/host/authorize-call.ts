import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { approvedArguments, digestForApproval, sha256Hex } from '../policy/approval-digest.js';
import { authorize, decide, stricter } from '../policy/authorize.js';
import type { ConversationSandbox } from '../sandbox/index.js';
import type { ExecutionRecord } from './execution-record.js';
import type { ApprovalHandler, ApprovalRequest, ExecuteContext, ToolDefinition, ToolOutput } from './tool.js';

/** Filled by ToolContext.invoke: what a delegating call really ran, and what the user approved. */
export interface Delegation {
  executed?: NonNullable<ToolOutput['executed']>;
  approval?: ExecutionRecord['approval'];
}

/** Everything a ToolContext is built from. */
export interface ToolScope {
  callId: string;
  /** The call as the model wrote it (the `calledAs` of a delegated approval). */
  call: { tool: string; arguments: unknown };
  context: ExecuteContext;
  sandbox: ConversationSandbox;
  log: Logger;
  depth: number;
  delegation: Delegation;
}

export interface AuthorizeCallInput {
  tool: ToolDefinition;
  args: unknown;
  scope: Pick<ToolScope, 'callId' | 'context' | 'sandbox' | 'delegation'>;
  /** For a delegated call: what the model called, the files the arguments came from, secrets found in them. */
  delegated?: Pick<ApprovalRequest, 'calledAs' | 'sources' | 'secrets'>;
}

/**
 * The policy step of a call. For `ask`, the arguments' bytes are digested
 * once (and saved under outputs/ when too large to show); the call then runs
 * with the arguments parsed back from exactly those bytes, so what was
 * approved is what is sent. Returns the arguments to run with.
 */
export async function authorizeCall(host: { config: Config; approve: ApprovalHandler | undefined }, input: AuthorizeCallInput): Promise<unknown> {
  const { tool, args, scope, delegated = {} } = input;
  const { config } = host;
  const { context } = scope;
  const request: ApprovalRequest = { tool: tool.name, arguments: args, conversationId: context.conversationId, ...delegated };
  // Secrets detected in a delegating call's arguments raise the decision (screening.delegation).
  const atLeast = delegated.secrets === undefined ? undefined : config.screening.delegation;
  const asks = stricter(decide(config.policy, tool), atLeast) === 'ask' && (context.approve !== undefined || host.approve !== undefined);
  if (asks) request.digest = await digestForApproval({ arguments: args, callId: scope.callId, tool: tool.name, sandbox: scope.sandbox });
  const approvers = [context.approve, host.approve];
  await authorize({ policy: config.policy, tool, request, approvers, ...(atLeast === undefined ? {} : { atLeast }) });
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
