import { EventEmitter } from 'node:events';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import type { SpillwayError } from '../errors.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/logger.js';
import { UpstreamConnection, type UpstreamConnectionEvents, type UpstreamStatus } from './upstream-connection.js';
import type { UpstreamTimers } from './upstream-timers.js';
import { exposedToolName, namespaceSeparator, upstreamToolDefinition } from './upstream-tool.js';

/** An upstream's status with the names its tools are offered under here. */
export interface UpstreamReport extends UpstreamStatus {
  /** The tools as the host offers them (NAME__tool). */
  offered: string[];
}

export interface UpstreamManagerOptions {
  host: Host;
  config: Config;
  logger: Logger;
  /** Clock and timers of every connection (handshake deadline, back-off, pings); tests pass their own. */
  timers?: UpstreamTimers;
}

/**
 * Every upstream in `config.upstreams`, kept in the host's tool registry: tools
 * appear once an upstream has connected (MCP clients get tools/list_changed),
 * follow its tools/list_changed, and stay registered while a dead upstream
 * reconnects (calls meanwhile fail with UPSTREAM_UNAVAILABLE and the time of
 * the next attempt), so the catalogue a model sees does not churn with every
 * restart. Every status change of every upstream is emitted as `status`.
 */
export class UpstreamManager extends EventEmitter<UpstreamConnectionEvents> {
  private readonly host: Host;
  private readonly logger: Logger;
  private readonly connections = new Map<string, UpstreamConnection>();
  /** Per upstream: offered name → fingerprint of what was registered. */
  private readonly registered = new Map<string, Map<string, string>>();
  private firstAttempts: Promise<boolean>[] | undefined;

  constructor(options: UpstreamManagerOptions) {
    super();
    this.host = options.host;
    this.logger = options.logger;
    for (const [name, entry] of Object.entries(options.config.upstreams)) {
      const connection: UpstreamConnection = new UpstreamConnection({
        name,
        entry,
        settings: options.config.upstream,
        logger: options.logger,
        onTools: (tools) => this.sync(connection, tools),
        ...(options.timers === undefined ? {} : { timers: options.timers }),
      });
      connection.on('status', (status) => this.emit('status', status));
      this.connections.set(name, connection);
    }
  }

  /**
   * Starts connecting to every upstream at once and returns without waiting:
   * serving never waits for an upstream's handshake. Failures are logged and
   * retried with back-off.
   */
  start(): void {
    if (this.firstAttempts !== undefined) return;
    this.firstAttempts = [...this.connections.values()].map((connection) =>
      connection.start().then((connected) => {
        if (!connected) {
          const status = connection.status();
          this.logger.error(
            { upstream: status.name, error: status.lastError, nextAttemptAt: status.nextAttemptAt },
            'upstream unavailable at start; retrying with back-off',
          );
        }
        return connected;
      }),
    );
  }

  /** Resolves when every upstream has made its first attempt (connected, or failed and scheduled a retry): for one-shot callers such as `spillway call`. */
  async settled(): Promise<UpstreamReport[]> {
    this.start();
    await Promise.all(this.firstAttempts ?? []);
    return this.reports();
  }

  /**
   * For a call to NAME__tool that is not registered: when upstream NAME is
   * not connected (still connecting, or down before it ever listed its
   * tools), the call gets its UPSTREAM_UNAVAILABLE rather than TOOL_NOT_FOUND.
   */
  explainMissing(offered: string): SpillwayError | undefined {
    const separator = offered.indexOf(namespaceSeparator);
    if (separator <= 0) return undefined;
    const connection = this.connections.get(offered.slice(0, separator));
    if (connection === undefined || connection.status().state === 'connected') return undefined;
    return connection.unavailable(offered.slice(separator + namespaceSeparator.length));
  }

  get(name: string): UpstreamConnection | undefined {
    return this.connections.get(name);
  }

  reports(): UpstreamReport[] {
    return [...this.connections.values()].map((connection) => ({ ...connection.status(), offered: [...(this.registered.get(connection.name)?.keys() ?? [])] }));
  }

  /** The /healthz section: one entry per upstream, small. */
  health(): Record<string, unknown> {
    return Object.fromEntries(
      this.reports().map((report) => [
        report.name,
        {
          state: report.state,
          tools: report.offered.length,
          failures: report.failures,
          restarts: report.restarts,
          ...(report.nextAttemptAt === undefined ? {} : { nextAttemptAt: report.nextAttemptAt }),
          ...(report.handshakeDeadline === undefined ? {} : { handshakeDeadline: report.handshakeDeadline }),
        },
      ]),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  /** Makes the host's registry match the upstream's tool list: add new, replace changed, remove gone. */
  private sync(connection: UpstreamConnection, tools: Tool[]): void {
    this.host.changeTools(() => this.apply(connection, tools));
  }

  private apply(connection: UpstreamConnection, tools: Tool[]): void {
    const previous = this.registered.get(connection.name) ?? new Map<string, string>();
    const next = new Map<string, string>();
    for (const tool of tools) {
      const name = exposedToolName(connection.name, tool.name);
      if (next.has(name)) {
        this.logger.warn({ upstream: connection.name, tool: tool.name }, 'two upstream tools map to the same name; keeping the first');
        continue;
      }
      const fingerprint = JSON.stringify([tool.name, tool.title, tool.description, tool.inputSchema, tool.annotations]);
      if (previous.get(name) === fingerprint && this.host.getTool(name) !== undefined) {
        next.set(name, fingerprint);
        continue;
      }
      if (previous.has(name)) this.host.unregisterTool(name);
      else if (this.host.getTool(name) !== undefined) {
        this.logger.warn({ upstream: connection.name, tool: name }, 'an upstream tool has the name of a tool already registered; it is not offered');
        continue;
      }
      this.host.registerTool(upstreamToolDefinition(connection, tool));
      next.set(name, fingerprint);
    }
    for (const name of previous.keys()) if (!next.has(name)) this.host.unregisterTool(name);
    this.registered.set(connection.name, next);
  }
}
