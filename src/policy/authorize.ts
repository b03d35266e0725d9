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

/** The stricter of two decisions (deny over ask over allow). */
export function stricter(a: Decision, b: Decision | undefined): Decision {
  const order: Decision[] = ['allow', 'ask', 'deny'];
  return b === undefined || order.indexOf(a) >= order.indexOf(b) ? a : b;
}

export interface AuthorizeInput {
  policy: Config['policy'];
  tool: PolicySubject;
  /** A floor on the decision (secrets in a delegating call's arguments raise `allow` to `ask`). */
  atLeast?: Decision;
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
  const decision = stricter(decide(input.policy, input.tool), input.atLeast);
  if (decision === 'allow') return;
  const name = input.tool.name;
  const secrets = input.request.secrets?.length ?? 0;
  if (decision === 'deny' && secrets > 0 && input.atLeast === 'deny') {
    throw new SpillwayError(
      'PERMISSION_DENIED',
      `The call to ${name} was refused: its arguments hold ${secrets === 1 ? 'a value that looks' : `${secrets} values that look`} like a secret (${input.request.secrets?.map((secret) => secret.kind).join(', ')}), and screening.delegation is "deny". Remove the secret from the arguments file, or tell the user.`,
      { tool: name, secrets: input.request.secrets },
    );
  }
  if (decision === 'deny') {
    throw new SpillwayError('PERMISSION_DENIED', `The tool ${name} is denied by this host's policy; it was not run. Tell the user, or use another tool.`, {
      tool: name,
    });
  }
  const approver = input.approvers.find((candidate) => candidate !== undefined);
  if (approver === undefined) {
    throw new SpillwayError(
      'APPROVAL_UNAVAILABLE',
      `The tool ${name} needs the user's approval (${secrets > 0 ? `its arguments hold a detected secret (${input.request.secrets?.map((secret) => secret.kind).join(', ')}) and screening.delegation is "ask"` : 'policy "ask"'}), and this client cannot be asked: it did not declare MCP elicitation support and no approval callback is set. ` +
        `It was not run. Tell the user; they can allow it in spillway's configuration (policy.rules: {"${name}": "allow"}) or use a client that supports elicitation.`,
      { tool: name, ...(secrets > 0 ? { secrets: input.request.secrets } : {}) },
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
