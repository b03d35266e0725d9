import type { Config, Decision } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { ApprovalHandler, ApprovalRequest } from './approval.js';
import { mostSpecificMatch } from '../util/tool-pattern.js';

/** What the policy needs to know of a tool (a host ToolDefinition fits). */
export interface PolicySubject {
  name: string;
  /** "local" (or absent) for the host's own tools; upstream tools fall under policy.upstreamDefault. */
  origin?: 'local' | { upstream: string };
}

/** The policy decision for a tool: the most specific rule, else the default for its origin. */
export function decide(policy: Config['policy'], tool: PolicySubject): Decision {
  const rule = mostSpecificMatch(policy.rules, tool.name);
  if (rule !== undefined) return rule;
  return typeof tool.origin === 'object' ? policy.upstreamDefault : policy.default;
}

export interface AuthorizeInput {
  policy: Config['policy'];
  tool: PolicySubject;
  request: ApprovalRequest;
  /** Approval channels in order of preference (MCP elicitation, then the library callback). */
  approvers: (ApprovalHandler | undefined)[];
}

/**
 * Judges a call on the arguments that will really be sent (after a delegating
 * call's expansion). Throws PERMISSION_DENIED, APPROVAL_DECLINED or
 * APPROVAL_UNAVAILABLE; returns when the call may run.
 */
export async function authorize(input: AuthorizeInput): Promise<void> {
  const decision = decide(input.policy, input.tool);
  if (decision === 'allow') return;
  const name = input.tool.name;
  if (decision === 'deny') {
    throw new SpillwayError('PERMISSION_DENIED', `The tool ${name} is denied by this host's policy; it was not run. Tell the user, or use another tool.`, {
      tool: name,
    });
  }
  const approver = input.approvers.find((candidate) => candidate !== undefined);
  if (approver === undefined) {
    throw new SpillwayError(
      'APPROVAL_UNAVAILABLE',
      `The tool ${name} needs the user's approval (policy "ask"), and this client cannot be asked: it did not declare MCP elicitation support and no approval callback is set. ` +
        `It was not run. Tell the user; they can allow it in spillway's configuration (policy.rules: {"${name}": "allow"}) or use a client that supports elicitation.`,
      { tool: name },
    );
  }
  let approved = false;
  try {
    approved = await approver(input.request);
  } catch (error) {
    if (SpillwayError.is(error)) throw error;
    throw new SpillwayError('APPROVAL_DECLINED', `Approval for ${name} failed: ${(error as Error).message}. The tool was not run.`, {
      tool: name,
      reason: 'failed',
    });
  }
  if (!approved) {
    throw new SpillwayError('APPROVAL_DECLINED', `The user declined the call to ${name}; it was not run. Ask the user what to change.`, {
      tool: name,
      reason: 'declined',
    });
  }
}
