import { SpillwayError } from '../errors.js';
import { httpErrorStatus, isConnectionClosed, isRequestTimeout, mcpErrorCode } from './client-sdk.js';
import type { UpstreamGeneration } from './upstream-generation.js';
import type { UpstreamState } from './upstream-status.js';

/** A failed upstream call as the model reads it: a timeout (with what to raise), a cancel, or the server's own refusal. */
export function callFailure(upstream: string, generation: UpstreamGeneration, error: unknown, tool: string, timeoutMs: number): SpillwayError {
  const details = { upstream, tool };
  if (isRequestTimeout(error)) {
    return new SpillwayError(
      'TOOL_TIMEOUT',
      generation.withStderr(
        `The upstream MCP server "${upstream}" did not answer ${tool} within ${timeoutMs} ms; spillway cancelled the request. ` +
          `The server may still have acted on it: check before calling again. To allow longer, raise upstreams.${upstream}.timeoutMs (or upstream.timeoutMs).`,
      ),
      { ...details, timeoutMs },
    );
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return new SpillwayError('TOOL_FAILED', `The call to ${tool} on "${upstream}" was cancelled by the client.`, details);
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = mcpErrorCode(error);
  return new SpillwayError('UPSTREAM_ERROR', `The upstream MCP server "${upstream}" rejected ${tool}: ${message}`, {
    ...details,
    ...(code === undefined ? {} : { mcpCode: code }),
  });
}

/** A call cut off by the end of the connection, named by its real cause: an over-size answer, an exit, a signal, a restart. */
export function closedDuringCall(upstream: string, generation: UpstreamGeneration, tool: string): SpillwayError {
  const tooLarge = generation.created.messageTooLarge();
  if (tooLarge !== undefined) {
    return new SpillwayError(
      'RESULT_TOO_LARGE',
      generation.withStderr(
        `The upstream MCP server "${upstream}" answered ${tool} with a message of at least ${tooLarge.bytes} bytes, over the cap of ${tooLarge.limit} bytes (upstream.maxMessageBytes); ` +
          'spillway dropped it and restarts the server. Ask for less (a narrower query, a page, a range), or raise upstream.maxMessageBytes.',
      ),
      { upstream, tool, limit: 'upstream.maxMessageBytes', value: tooLarge.limit, bytes: tooLarge.bytes },
    );
  }
  return new SpillwayError(
    'UPSTREAM_UNAVAILABLE',
    generation.withStderr(
      `The upstream MCP server "${upstream}" closed the connection during ${tool} (${generation.endReason() ?? 'it may have crashed'}); spillway is reconnecting. The call may or may not have taken effect.`,
    ),
    { upstream, tool },
  );
}

/** Why an attempt failed: the deadline (ours or the SDK's), the process's end when it closed early, else the error itself (spawn ENOENT, HTTP 401). */
export function connectFailure(generation: UpstreamGeneration, error: unknown, missedDeadline: string): string {
  if (generation.ended !== undefined) return generation.ended;
  if (isRequestTimeout(error)) return missedDeadline;
  if (isConnectionClosed(error)) return generation.endReason() ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Network-level failures of a Streamable HTTP upstream (refused, reset, session gone): reconnect rather than report a tool error. */
export function isConnectionFailure(error: unknown): boolean {
  const status = httpErrorStatus(error);
  if (status !== undefined) return status === 404 || status === 502 || status === 503;
  if (error instanceof TypeError) return true; // fetch failed: ECONNREFUSED, ECONNRESET, DNS
  return false;
}

/** Where an upstream stands when a call cannot be sent to it. */
export interface NotConnected {
  upstream: string;
  tool: string;
  state: UpstreamState;
  nextAttemptAt?: Date;
  handshakeDeadline?: Date;
  lastError?: string;
}

/** The error of a call that cannot be sent now: still connecting, reconnecting (and when), failed. */
export function notConnected(at: NotConnected): SpillwayError {
  const { upstream, tool, state } = at;
  const details = { upstream, tool, state, ...(at.nextAttemptAt === undefined ? {} : { nextAttemptAt: at.nextAttemptAt.toISOString() }) };
  if (state === 'connecting') {
    const deadline = at.handshakeDeadline === undefined ? '' : ` (its handshake deadline is ${at.handshakeDeadline.toISOString()})`;
    return new SpillwayError(
      'UPSTREAM_UNAVAILABLE',
      `The upstream MCP server "${upstream}" is still connecting${deadline}, so ${tool} was not run. Try again in a moment, or check list_upstreams.`,
      details,
    );
  }
  if (state === 'connected') {
    // The connection closed an instant ago; the status catches up on the next tick.
    return new SpillwayError(
      'UPSTREAM_UNAVAILABLE',
      `The upstream MCP server "${upstream}" has just lost its connection, so ${tool} was not run; spillway is reconnecting. Try again in a moment, or check list_upstreams.`,
      details,
    );
  }
  const when = at.nextAttemptAt === undefined ? '' : ` The next reconnect attempt is at ${at.nextAttemptAt.toISOString()}.`;
  const why = at.lastError === undefined ? '' : ` Last error: ${at.lastError}`;
  return new SpillwayError(
    'UPSTREAM_UNAVAILABLE',
    `The upstream MCP server "${upstream}" is not connected (${state}), so ${tool} was not run.${when} Try again later, or check list_upstreams.${why}`,
    details,
  );
}
