import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SpillwayError } from '../errors.js';
import type { ApprovalHandler } from './approval.js';
import { describeApproval } from './describe-approval.js';

export interface ElicitationApproverOptions {
  /** How long to wait for the user's answer (policy.approvalTimeoutMs). */
  timeoutMs: number;
  /** The tool call's own signal: a cancelled call stops waiting. */
  signal?: AbortSignal;
}

/**
 * Asks the connected MCP client to approve a call through elicitation (a form
 * with one boolean). Only an explicit accept with the box checked approves;
 * decline, cancel, an error answer and no answer within the timeout all refuse,
 * each with a reason the model can relay.
 */
export function elicitationApprover(server: Server, options: ElicitationApproverOptions): ApprovalHandler {
  return async (request) => {
    let answer: Awaited<ReturnType<Server['elicitInput']>>;
    try {
      answer = await server.elicitInput(
        {
          message: describeApproval(request),
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Run this call', description: 'Check to run the call exactly as shown.' } },
            required: ['approve'],
          },
        },
        { timeout: options.timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new SpillwayError(
          'APPROVAL_DECLINED',
          `The call to ${request.tool} needs the user's approval, and the client did not answer the approval request within ${options.timeoutMs / 1000} s (policy.approvalTimeoutMs); it was not run. Ask the user to approve it when asked, then call again.`,
          { tool: request.tool, reason: 'timeout', timeoutMs: options.timeoutMs },
        );
      }
      throw new SpillwayError(
        'APPROVAL_DECLINED',
        `The call to ${request.tool} needs the user's approval, and the client failed the approval request (${(error as Error).message}); it was not run.`,
        { tool: request.tool, reason: 'failed' },
      );
    }
    if (answer.action === 'accept' && answer.content?.approve === true) return true;
    if (answer.action === 'accept') {
      throw new SpillwayError('APPROVAL_DECLINED', `The user did not check "Run this call" for ${request.tool}; it was not run. Ask the user what to change.`, {
        tool: request.tool,
        reason: 'declined',
      });
    }
    throw new SpillwayError(
      'APPROVAL_DECLINED',
      answer.action === 'cancel'
        ? `The user dismissed the approval request for ${request.tool}; it was not run. Ask the user whether to try again.`
        : `The user declined the call to ${request.tool}; it was not run. Ask the user what to change.`,
      { tool: request.tool, reason: answer.action === 'cancel' ? 'cancelled' : 'declined' },
    );
  };
}
