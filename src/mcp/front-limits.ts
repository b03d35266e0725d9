import type { Config } from '../config/schema.js';
import { SpillwayError } from '../errors.js';

/** What the HTTP front holds its requests and connections to (server.*). */
export interface FrontLimits {
  /** Largest request body accepted, in bytes (server.maxBodyBytes). */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body (server.maxJsonDepth). */
  maxJsonDepth: number;
  /** Open HTTP connections at most (server.maxConnections). */
  maxConnections: number;
  /** Open HTTP connections from one client address (an IPv6 /64) at most (server.maxConnectionsPerAddress). */
  maxConnectionsPerAddress: number;
  /** Request headers must arrive within this long of the connection opening or of the request’s first byte, else 408 and close (server.headersTimeoutMs). */
  headersTimeoutMs: number;
  /** A request not received in full this long after it started is answered 408 and closed (server.requestTimeoutMs). */
  requestTimeoutMs: number;
  /** A kept-alive connection with no request for this long is closed (server.idleTimeoutMs); never one whose answer (an SSE stream) is still open. */
  idleTimeoutMs: number;
}

/**
 * Node's timeouts for the front's connections: the request headers
 * (slow-header clients), the whole request (slow bodies), and the quiet time
 * of a kept-alive connection between requests. None of them applies to an
 * answer still being sent, so SSE streams stay open. Node checks the first two
 * every connectionsCheckingInterval, here a quarter of the shorter one.
 */
export function connectionTimeouts(limits: FrontLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  keepAlive: boolean;
  keepAliveInitialDelay: number;
} {
  const headersTimeout = limits.headersTimeoutMs;
  const requestTimeout = limits.requestTimeoutMs;
  if (headersTimeout > requestTimeout) {
    const problem = `server.headersTimeoutMs (${headersTimeout}) must be at most server.requestTimeoutMs (${requestTimeout})`;
    throw new SpillwayError('CONFIG_INVALID', `Invalid configuration:\n- ${problem}`, { errors: [problem] });
  }
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(5_000, Math.floor(headersTimeout / 4))),
    // TCP keep-alive probes find clients that vanished (a laptop closed) under a resting SSE stream.
    keepAlive: true,
    keepAliveInitialDelay: 60_000,
  };
}

const limitKeys = [
  'maxBodyBytes',
  'maxJsonDepth',
  'maxConnections',
  'maxConnectionsPerAddress',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'idleTimeoutMs',
] as const satisfies readonly (keyof FrontLimits)[];

/** The front's limits: each from the options when given, else the host's configuration (server.*). */
export function frontLimits(options: Partial<FrontLimits>, configured: Config['server']): FrontLimits {
  return Object.fromEntries(limitKeys.map((key) => [key, options[key] ?? configured[key]])) as unknown as FrontLimits;
}
