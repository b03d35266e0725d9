import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config, UpstreamConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { UpstreamTimers } from './upstream-timers.js';

/**
 * connecting: an attempt (start, handshake, tool listing) is under way; connected; reconnecting: down, a
 * retry is scheduled; failed: down for good (no reconnect); closed: shut down.
 */
export type UpstreamState = 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'closed';

/** What `list_upstreams`, `spillway upstreams` and /healthz report for one upstream. */
export interface UpstreamStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** The command line or URL (no env values, headers or credentials). */
  target: string;
  state: UpstreamState;
  /** The upstream's own tool names. */
  tools: string[];
  server?: { name: string; version: string };
  connectedAt?: string;
  /** Consecutive failed attempts since the last successful connection. */
  failures: number;
  /** Times this upstream was restarted (stdio) or reconnected (HTTP) because it stopped answering pings or calls. */
  restarts: number;
  lastError?: string;
  nextAttemptAt?: string;
  /** While connecting: when the handshake deadline passes. */
  handshakeDeadline?: string;
  pid?: number;
}

export interface UpstreamConnectionEvents {
  /** The state (or what status() reports with it: failures, last error) changed. */
  status: [UpstreamStatus];
}

export interface UpstreamConnectionOptions {
  name: string;
  entry: UpstreamConfig;
  settings: Config['upstream'];
  logger: Logger;
  /** Called with the upstream's whole tool list after every (re)connection and tools/list_changed refresh. */
  onTools?: (tools: Tool[]) => void;
  /** Reconnect with back-off after a failure or exit (default true; the CLI probe turns it off). */
  reconnect?: boolean;
  /** Clock and timers (handshake deadline, back-off, pings); tests pass their own. */
  timers?: UpstreamTimers;
}

export interface UpstreamCallOptions {
  signal?: AbortSignal;
  /** This call's timeout, from the configuration the call runs under (a reload applies); default the connection's. */
  timeoutMs?: number;
}
