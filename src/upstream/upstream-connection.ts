import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config, UpstreamConfig } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { reconnectDelay } from './backoff.js';
import { isConnectionClosed, isRequestTimeout, loadClientSdk, mcpErrorCode } from './client-sdk.js';
import { createTransport, describeTarget } from './create-transport.js';
import { listAllTools } from './list-all-tools.js';
import { callFailure, closedDuringCall, connectFailure, isConnectionFailure, notConnected } from './upstream-errors.js';
import type { UpstreamCallOptions, UpstreamConnectionEvents, UpstreamConnectionOptions, UpstreamState, UpstreamStatus } from './upstream-status.js';

export type { UpstreamCallOptions, UpstreamConnectionEvents, UpstreamConnectionOptions, UpstreamState, UpstreamStatus } from './upstream-status.js';
import { UpstreamGeneration } from './upstream-generation.js';
import { UpstreamLiveness } from './upstream-liveness.js';
import { systemTimers, type UpstreamTimers } from './upstream-timers.js';

/**
 * One upstream MCP server: an SDK client over stdio or Streamable HTTP that
 * connects (under a handshake deadline), lists tools (all pages), follows
 * tools/list_changed, calls tools with the configured timeout, pings an idle
 * connection, restarts a server that stops answering, and reconnects with
 * back-off when the server fails to start or goes away. It never throws from
 * its own life cycle: the host keeps serving whatever else it has. Each state
 * change is emitted as `status`.
 */
export class UpstreamConnection extends EventEmitter<UpstreamConnectionEvents> {
  readonly name: string;
  readonly timeoutMs: number;
  private readonly entry: UpstreamConfig;
  private readonly settings: Config['upstream'];
  private readonly logger: Logger;
  private readonly onTools: (tools: Tool[]) => void;
  private readonly reconnect: boolean;
  private readonly timers: UpstreamTimers;
  /** The connected generation (undefined while down or connecting). */
  private current: UpstreamGeneration | undefined;
  /** The generation of an attempt in progress, so close() can abort a connect that hangs. */
  private connecting: UpstreamGeneration | undefined;
  private generations = 0;
  private liveness: UpstreamLiveness | undefined;
  private state: UpstreamState = 'connecting';
  private tools: Tool[] = [];
  private failures = 0;
  private restarts = 0;
  /** Back-off level: grows with each failure, and with each connection that dies soon after it was made. */
  private backoffLevel = 0;
  private lastError: string | undefined;
  private connectedAt: Date | undefined;
  private nextAttemptAt: Date | undefined;
  private handshakeDeadline: Date | undefined;
  private cancelReconnect: (() => void) | undefined;
  private closed = false;
  private attempt: Promise<boolean> | undefined;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(options: UpstreamConnectionOptions) {
    super();
    this.name = options.name;
    this.entry = options.entry;
    this.settings = options.settings;
    this.timeoutMs = options.entry.timeoutMs ?? options.settings.timeoutMs;
    this.logger = options.logger.child({ upstream: options.name });
    this.onTools = options.onTools ?? (() => undefined);
    this.reconnect = options.reconnect ?? true;
    this.timers = options.timers ?? systemTimers;
  }

  /** The first connection attempt; resolves true when connected. Never rejects. */
  start(): Promise<boolean> {
    return this.connect();
  }

  /** The tools the upstream offered at the last listing. */
  listTools(): Tool[] {
    return this.tools;
  }

  status(): UpstreamStatus {
    const status: UpstreamStatus = {
      name: this.name,
      transport: 'command' in this.entry ? 'stdio' : 'http',
      target: describeTarget(this.entry),
      state: this.state,
      tools: this.tools.map((tool) => tool.name),
      failures: this.failures,
      restarts: this.restarts,
    };
    const server = (this.current ?? this.connecting)?.client.getServerVersion();
    if (server !== undefined) status.server = { name: server.name, version: server.version };
    if (this.connectedAt !== undefined && this.state === 'connected') status.connectedAt = this.connectedAt.toISOString();
    if (this.lastError !== undefined) status.lastError = this.lastError;
    if (this.nextAttemptAt !== undefined && this.state === 'reconnecting') status.nextAttemptAt = this.nextAttemptAt.toISOString();
    if (this.handshakeDeadline !== undefined && this.state === 'connecting') status.handshakeDeadline = this.handshakeDeadline.toISOString();
    const live = this.state === 'connected' ? this.current : this.state === 'connecting' ? this.connecting : undefined;
    const pid = live?.pid();
    if (pid !== undefined) status.pid = pid;
    return status;
  }

  /**
   * Calls one of the upstream's tools (by its own name). Fails with
   * UPSTREAM_UNAVAILABLE when not connected (or still connecting),
   * TOOL_TIMEOUT after the configured timeout (the request is cancelled
   * upstream, and a ping follows), RESULT_TOO_LARGE when the answer is over
   * upstream.maxMessageBytes, UPSTREAM_ERROR for protocol errors. A result
   * with isError is returned as is: the host spills it like a local error.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const generation = this.current;
    const liveness = this.liveness;
    if (generation === undefined || liveness === undefined || this.state !== 'connected') throw this.unavailable(tool);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    liveness.callStarted();
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await generation.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      this.noteCallFailure(liveness, error);
      throw await this.callError(generation, error, tool, timeoutMs);
    }
    liveness.callAnswered();
    if ('toolResult' in result && !('content' in result)) {
      // Protocol 2024-10-07 servers answer with { toolResult }.
      return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
    }
    return result as CallToolResult;
  }

  /** Stops reconnecting and closes the client (a stdio child gets stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelReconnect?.();
    this.cancelReconnect = undefined;
    this.liveness?.stop();
    this.liveness = undefined;
    this.setState('closed');
    await this.connecting?.client.close().catch(() => undefined);
    await this.attempt?.catch(() => undefined);
    const generation = this.current;
    this.current = undefined;
    await generation?.client.close().catch(() => undefined);
  }

  private connect(): Promise<boolean> {
    this.attempt ??= this.tryConnect().finally(() => {
      this.attempt = undefined;
      this.connecting = undefined;
      this.handshakeDeadline = undefined;
    });
    return this.attempt;
  }

  private async tryConnect(): Promise<boolean> {
    if (this.closed) return false;
    this.nextAttemptAt = undefined;
    this.generations += 1;
    // One deadline for the whole start: loading the client, spawn, initialize and the tool
    // listing. Set before the first wait, so a status read meanwhile already shows it.
    const handshakeMs = this.settings.handshakeTimeoutMs;
    const deadlineMs = this.timers.now().getTime() + handshakeMs;
    this.handshakeDeadline = new Date(deadlineMs);
    const sdk = await loadClientSdk();
    const created = createTransport(sdk, this.entry, this.settings.maxMessageBytes);
    const client = new sdk.Client({ name: 'spillway', version: '0.1.0' }, { capabilities: {} });
    const generation = new UpstreamGeneration(this.generations, this.name, client, created);
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      // One refresh at a time, so a burst of notifications cannot apply an older list last.
      this.refreshing = this.refreshing.then(() => this.refreshTools(generation));
    });
    client.onerror = (error) => {
      generation.transportError = error.message;
      this.logger.debug({ err: error.message }, 'upstream transport error');
    };
    client.onclose = () => this.lost(generation);
    this.connecting = generation;
    this.setState('connecting');
    const missedDeadline = `no MCP handshake within ${handshakeMs} ms (upstream.handshakeTimeoutMs)`;
    const cancelDeadline = this.timers.schedule('handshake', Math.max(0, deadlineMs - this.timers.now().getTime()), () => {
      generation.ended = missedDeadline;
      void created.kill().catch(() => undefined);
    });
    try {
      await client.connect(created.transport, { timeout: handshakeMs });
      const tools = await listAllTools(client, handshakeMs);
      cancelDeadline();
      if (this.closed) {
        await client.close().catch(() => undefined);
        return false;
      }
      this.connected(generation, tools);
      return true;
    } catch (error) {
      cancelDeadline();
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      // Let the child's last stderr lines (usually the reason it died) arrive before quoting them.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return false;
      this.failures += 1;
      this.backoffLevel += 1;
      const reason = connectFailure(generation, error, missedDeadline);
      this.lastError = generation.withStderr(`could not connect: ${reason}`);
      this.logger.warn({ err: reason, failures: this.failures }, 'upstream connection attempt failed');
      this.scheduleReconnect();
      return false;
    }
  }

  private connected(generation: UpstreamGeneration, tools: Tool[]): void {
    this.current = generation;
    this.connecting = undefined;
    this.handshakeDeadline = undefined;
    this.tools = tools;
    this.connectedAt = this.timers.now();
    this.failures = 0;
    this.lastError = undefined;
    this.liveness = new UpstreamLiveness({
      settings: this.settings,
      timers: this.timers,
      ping: async (signal) => {
        await generation.client.ping({ signal, timeout: this.settings.pingTimeoutMs });
      },
      onDead: (reason) => this.restart(generation, reason),
    });
    this.logger.info({ tools: tools.length, server: generation.client.getServerVersion()?.name, generation: generation.number }, 'upstream connected');
    this.setState('connected');
    this.publishTools(tools);
  }

  /** The connection closed (the child exited, the server hung up): report it and try again later. */
  private lost(generation: UpstreamGeneration): void {
    if (this.current !== generation || this.closed) return;
    this.current = undefined;
    this.liveness?.stop();
    this.liveness = undefined;
    const lived = this.connectedAt === undefined ? 0 : this.timers.now().getTime() - this.connectedAt.getTime();
    // Let the child's last stderr lines arrive before quoting them (calls meanwhile find no connection).
    setImmediate(() => {
      if (this.closed) return;
      // A server that dies right after each start must not be restarted at the minimum delay forever.
      this.backoffLevel = lived >= this.settings.reconnectMaxMs ? 1 : this.backoffLevel + 1;
      this.failures += 1;
      this.lastError = generation.withStderr(`the connection closed: ${generation.endReason() ?? 'the server exited or hung up'}`);
      this.logger.error({ failures: this.failures, reason: generation.endReason() }, 'upstream connection lost');
      this.scheduleReconnect();
    });
  }

  /** The server stopped answering (pings, or calls): end this generation and start again with back-off. */
  private restart(generation: UpstreamGeneration, reason: string): void {
    if (this.current !== generation || this.closed) return;
    this.current = undefined;
    this.liveness = undefined;
    this.restarts += 1;
    this.failures += 1;
    this.backoffLevel += 1;
    generation.ended = `spillway ${generation.created.kind === 'stdio' ? 'restarts' : 'reconnects'} the server: ${reason}`;
    generation.client.onclose = undefined;
    this.lastError = generation.withStderr(`stopped answering and was ${generation.created.kind === 'stdio' ? 'restarted' : 'reconnected'}: ${reason}`);
    this.logger.error({ reason, restarts: this.restarts }, 'upstream stopped answering; restarting it');
    void generation.created
      .kill()
      .then(() => generation.client.close())
      .catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (!this.reconnect || this.closed) {
      this.setState(this.closed ? 'closed' : 'failed');
      return;
    }
    const delay = reconnectDelay(this.backoffLevel, this.settings.reconnectMinMs, this.settings.reconnectMaxMs);
    this.nextAttemptAt = new Date(this.timers.now().getTime() + delay);
    this.logger.info({ delayMs: delay }, 'upstream reconnect scheduled');
    this.cancelReconnect = this.timers.schedule('reconnect', delay, () => {
      this.cancelReconnect = undefined;
      void this.connect();
    });
    this.setState('reconnecting');
  }

  private setState(state: UpstreamState): void {
    this.state = state;
    this.emit('status', this.status());
  }

  private async refreshTools(generation: UpstreamGeneration): Promise<void> {
    if (this.current !== generation) return;
    try {
      const tools = await listAllTools(generation.client, this.timeoutMs);
      if (this.current !== generation) return;
      this.tools = tools;
      this.logger.info({ tools: tools.length }, 'upstream tool list changed');
      this.publishTools(tools);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'could not refresh the upstream tool list');
    }
  }

  private publishTools(tools: Tool[]): void {
    try {
      this.onTools(tools);
    } catch (error) {
      this.logger.error({ err: error }, 'could not register upstream tools');
    }
  }

  /** What a failed call tells the liveness check: an answer (the server is alive), a timeout, or neither. */
  private noteCallFailure(liveness: UpstreamLiveness, error: unknown): void {
    if (isRequestTimeout(error)) liveness.callTimedOut();
    else if (mcpErrorCode(error) !== undefined && !isConnectionClosed(error)) liveness.callAnswered();
    else liveness.callEnded();
  }

  private async callError(generation: UpstreamGeneration, error: unknown, tool: string, timeoutMs: number): Promise<SpillwayError> {
    if (generation.created.kind === 'http' && isConnectionFailure(error)) {
      // An HTTP upstream has no process to watch: a refused request or a lost session is how its death shows.
      generation.transportError = error instanceof Error ? error.message : String(error);
      void generation.client.close();
      return new SpillwayError(
        'UPSTREAM_UNAVAILABLE',
        `The upstream MCP server "${this.name}" could not be reached for ${tool} (${generation.transportError}); spillway is reconnecting. Try again in a moment, or check list_upstreams.`,
        { upstream: this.name, tool },
      );
    }
    if (isConnectionClosed(error)) {
      // Let the child's last stderr lines (and its exit) arrive before quoting them.
      await new Promise((resolve) => setImmediate(resolve));
      return closedDuringCall(this.name, generation, tool);
    }
    return callFailure(this.name, generation, error, tool, timeoutMs);
  }

  /** The error of a call that cannot be sent now: still connecting, reconnecting (and when), failed. */
  unavailable(tool: string): SpillwayError {
    return notConnected({
      upstream: this.name,
      tool,
      state: this.state,
      ...(this.nextAttemptAt === undefined ? {} : { nextAttemptAt: this.nextAttemptAt }),
      ...(this.handshakeDeadline === undefined ? {} : { handshakeDeadline: this.handshakeDeadline }),
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
    });
  }
}
