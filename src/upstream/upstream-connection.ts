import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config, UpstreamConfig } from '../config/schema.js';
import { SpillwayError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { reconnectDelay } from './backoff.js';
import { createTransport, describeTarget, type CreatedTransport } from './create-transport.js';
import { StderrTail } from './stderr-tail.js';

/** connecting: first attempt; connected; reconnecting: down, a retry is scheduled; failed: down for good (no reconnect); closed: shut down. */
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
  lastError?: string;
  nextAttemptAt?: string;
  pid?: number;
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
  now?: () => Date;
}

export interface UpstreamCallOptions {
  signal?: AbortSignal;
  /** This call's timeout, from the configuration the call runs under (a reload applies); default the connection's. */
  timeoutMs?: number;
}

const maxToolPages = 100;
const stderrInErrorChars = 2000;

/**
 * One upstream MCP server: an SDK client over stdio or Streamable HTTP that
 * connects, lists tools (all pages), follows tools/list_changed, calls tools
 * with the configured timeout, and reconnects with back-off when the server
 * fails to start or goes away. It never throws from its own life cycle: the
 * host keeps serving whatever else it has.
 */
export class UpstreamConnection {
  readonly name: string;
  readonly timeoutMs: number;
  private readonly entry: UpstreamConfig;
  private readonly settings: Config['upstream'];
  private readonly logger: Logger;
  private readonly onTools: (tools: Tool[]) => void;
  private readonly reconnect: boolean;
  private readonly now: () => Date;
  private readonly stderr = new StderrTail();
  private client: Client | undefined;
  private created: CreatedTransport | undefined;
  private state: UpstreamState = 'connecting';
  private tools: Tool[] = [];
  private failures = 0;
  /** Back-off level: grows with each failure, and with each connection that dies soon after it was made. */
  private backoffLevel = 0;
  private lastError: string | undefined;
  private connectedAt: Date | undefined;
  private nextAttemptAt: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private attempt: Promise<boolean> | undefined;
  /** The client of an attempt in progress, so close() can abort a connect that hangs. */
  private connecting: Client | undefined;
  /** The last transport-level error (an oversized message, a stray stdout line), quoted when the connection then drops. */
  private transportError: string | undefined;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(options: UpstreamConnectionOptions) {
    this.name = options.name;
    this.entry = options.entry;
    this.settings = options.settings;
    this.timeoutMs = options.entry.timeoutMs ?? options.settings.timeoutMs;
    this.logger = options.logger.child({ upstream: options.name });
    this.onTools = options.onTools ?? (() => undefined);
    this.reconnect = options.reconnect ?? true;
    this.now = options.now ?? (() => new Date());
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
    };
    const server = this.client?.getServerVersion();
    if (server !== undefined) status.server = { name: server.name, version: server.version };
    if (this.connectedAt !== undefined && this.state === 'connected') status.connectedAt = this.connectedAt.toISOString();
    if (this.lastError !== undefined) status.lastError = this.lastError;
    if (this.nextAttemptAt !== undefined && this.state === 'reconnecting') status.nextAttemptAt = this.nextAttemptAt.toISOString();
    const pid = this.created?.pid();
    if (pid !== null && pid !== undefined && this.state === 'connected') status.pid = pid;
    return status;
  }

  /**
   * Calls one of the upstream's tools (by its own name). Fails with
   * UPSTREAM_UNAVAILABLE when not connected, TOOL_TIMEOUT after the configured
   * timeout (the request is cancelled upstream), UPSTREAM_ERROR for protocol
   * errors. A result with isError is returned as is: the host spills it like a
   * local error.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<CallToolResult> {
    const client = this.client;
    if (client === undefined || this.state !== 'connected') throw this.unavailable(tool);
    this.transportError = undefined;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      if ('toolResult' in result && !('content' in result)) {
        // Protocol 2024-10-07 servers answer with { toolResult }.
        return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
      }
      return result as CallToolResult;
    } catch (error) {
      if (this.created?.kind === 'http' && isConnectionFailure(error)) {
        // An HTTP upstream has no process to watch: a refused request or a lost session is how its death shows.
        this.transportError = error instanceof Error ? error.message : String(error);
        void client.close();
        throw new SpillwayError(
          'UPSTREAM_UNAVAILABLE',
          `The upstream MCP server "${this.name}" could not be reached for ${tool} (${this.transportError}); spillway is reconnecting. Try again in a moment, or check list_upstreams.`,
          { upstream: this.name, tool },
        );
      }
      throw this.translate(error, tool, timeoutMs);
    }
  }

  /** Stops reconnecting and closes the client (a stdio child gets stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closed = true;
    this.state = 'closed';
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.connecting?.close().catch(() => undefined);
    await this.attempt?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private connect(): Promise<boolean> {
    this.attempt ??= this.tryConnect().finally(() => {
      this.attempt = undefined;
      this.connecting = undefined;
    });
    return this.attempt;
  }

  private async tryConnect(): Promise<boolean> {
    if (this.closed) return false;
    this.nextAttemptAt = undefined;
    const created = createTransport(this.entry, this.settings.maxMessageBytes);
    this.stderr.attach(created.stderr);
    const client = new Client({ name: 'spillway', version: '0.1.0' }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      // One refresh at a time, so a burst of notifications cannot apply an older list last.
      this.refreshing = this.refreshing.then(() => this.refreshTools(client));
    });
    client.onerror = (error) => {
      this.transportError = error.message;
      this.logger.debug({ err: error.message }, 'upstream transport error');
    };
    client.onclose = () => this.lost(client);
    this.connecting = client;
    try {
      // A short per-call timeout must not make a slow-starting server unreachable.
      const connectTimeoutMs = Math.max(this.timeoutMs, this.settings.timeoutMs);
      await client.connect(created.transport, { timeout: connectTimeoutMs });
      const tools = await listAllTools(client, connectTimeoutMs);
      if (this.closed) {
        await client.close().catch(() => undefined);
        return false;
      }
      this.client = client;
      this.created = created;
      this.tools = tools;
      this.state = 'connected';
      this.connectedAt = this.now();
      this.failures = 0;
      this.lastError = undefined;
      this.logger.info({ tools: tools.length, server: client.getServerVersion()?.name }, 'upstream connected');
      this.publishTools(tools);
      return true;
    } catch (error) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      // Let the child's last stderr lines (usually the reason it died) arrive before quoting them.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return false;
      this.failures += 1;
      this.backoffLevel += 1;
      this.lastError = this.withStderr(`could not connect: ${(error as Error).message}`);
      this.logger.warn({ err: (error as Error).message, failures: this.failures }, 'upstream connection attempt failed');
      this.scheduleReconnect();
      return false;
    }
  }

  /** The connection closed (the child exited, the server hung up): report it and try again later. */
  private lost(client: Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    const lived = this.connectedAt === undefined ? 0 : this.now().getTime() - this.connectedAt.getTime();
    // A server that dies right after each start must not be restarted at the minimum delay forever.
    this.backoffLevel = lived >= this.settings.reconnectMaxMs ? 1 : this.backoffLevel + 1;
    this.failures += 1;
    this.lastError = this.withStderr(`the connection closed (${this.transportError ?? 'the server exited or hung up'})`);
    this.logger.error({ failures: this.failures }, 'upstream connection lost');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (!this.reconnect || this.closed) {
      this.state = this.closed ? 'closed' : 'failed';
      return;
    }
    this.state = 'reconnecting';
    const delay = reconnectDelay(this.backoffLevel, this.settings.reconnectMinMs, this.settings.reconnectMaxMs);
    this.nextAttemptAt = new Date(this.now().getTime() + delay);
    this.logger.info({ delayMs: delay }, 'upstream reconnect scheduled');
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  private async refreshTools(client: Client): Promise<void> {
    if (this.client !== client) return;
    try {
      const tools = await listAllTools(client, this.timeoutMs);
      if (this.client !== client) return;
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

  private unavailable(tool: string): SpillwayError {
    const when = this.nextAttemptAt === undefined ? '' : ` The next reconnect attempt is at ${this.nextAttemptAt.toISOString()}.`;
    const why = this.lastError === undefined ? '' : ` Last error: ${this.lastError}`;
    return new SpillwayError(
      'UPSTREAM_UNAVAILABLE',
      `The upstream MCP server "${this.name}" is not connected (${this.state}), so ${tool} was not run.${when} Try again later, or check list_upstreams.${why}`,
      { upstream: this.name, tool, state: this.state, ...(this.nextAttemptAt === undefined ? {} : { nextAttemptAt: this.nextAttemptAt.toISOString() }) },
    );
  }

  private translate(error: unknown, tool: string, timeoutMs: number): SpillwayError {
    const details = { upstream: this.name, tool };
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new SpillwayError(
        'TOOL_TIMEOUT',
        this.withStderr(
          `The upstream MCP server "${this.name}" did not answer ${tool} within ${timeoutMs} ms; spillway cancelled the request. ` +
            `The server may still have acted on it: check before calling again. To allow longer, raise upstreams.${this.name}.timeoutMs (or upstream.timeoutMs).`,
        ),
        { ...details, timeoutMs },
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return new SpillwayError(
        'UPSTREAM_UNAVAILABLE',
        this.withStderr(
          `The upstream MCP server "${this.name}" closed the connection during ${tool} (${this.transportError ?? 'it may have crashed'}); spillway is reconnecting. The call may or may not have taken effect.`,
        ),
        details,
      );
    }
    if (error instanceof Error && error.name === 'AbortError') {
      return new SpillwayError('TOOL_FAILED', `The call to ${tool} on "${this.name}" was cancelled by the client.`, details);
    }
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof McpError ? error.code : undefined;
    return new SpillwayError('UPSTREAM_ERROR', `The upstream MCP server "${this.name}" rejected ${tool}: ${message}`, {
      ...details,
      ...(code === undefined ? {} : { mcpCode: code }),
    });
  }

  /** Appends the child's recent stderr (where servers print their tracebacks) to a message. */
  private withStderr(message: string): string {
    const tail = this.stderr.read();
    if (tail.length === 0) return message;
    return `${message}\n--- last stderr of ${this.name} ---\n${tail.slice(-stderrInErrorChars)}`;
  }
}

/** Network-level failures of a Streamable HTTP upstream (refused, reset, session gone): reconnect rather than report a tool error. */
function isConnectionFailure(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404 || error.code === 502 || error.code === 503;
  if (error instanceof TypeError) return true; // fetch failed: ECONNREFUSED, ECONNRESET, DNS
  return false;
}

async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxToolPages; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
