import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import type { Host } from '../host/host.js';
import type { Logger } from '../log/logger.js';
import { UpstreamConnection, type UpstreamStatus } from './upstream-connection.js';
import { exposedToolName, upstreamToolDefinition } from './upstream-tool.js';

/** An upstream's status with the names its tools are offered under here. */
export interface UpstreamReport extends UpstreamStatus {
  /** The tools as the host offers them (NAME__tool). */
  offered: string[];
}

export interface UpstreamManagerOptions {
  host: Host;
  config: Config;
  logger: Logger;
}

/**
 * Every upstream in `config.upstreams`, kept in the host's tool registry: tools
 * appear after a connection, follow tools/list_changed, and stay registered
 * while a dead upstream reconnects (calls meanwhile fail with
 * UPSTREAM_UNAVAILABLE and the time of the next attempt), so the catalogue a
 * model sees does not churn with every restart.
 */
export class UpstreamManager {
  private readonly host: Host;
  private readonly logger: Logger;
  private readonly connections = new Map<string, UpstreamConnection>();
  /** Per upstream: offered name → fingerprint of what was registered. */
  private readonly registered = new Map<string, Map<string, string>>();

  constructor(options: UpstreamManagerOptions) {
    this.host = options.host;
    this.logger = options.logger;
    for (const [name, entry] of Object.entries(options.config.upstreams)) {
      const connection: UpstreamConnection = new UpstreamConnection({
        name,
        entry,
        settings: options.config.upstream,
        logger: options.logger,
        onTools: (tools) => this.sync(connection, tools),
      });
      this.connections.set(name, connection);
    }
  }

  /** Connects to every upstream at once; resolves when each has made its first attempt. Failures are logged and retried. */
  async start(): Promise<UpstreamReport[]> {
    await Promise.all([...this.connections.values()].map((connection) => connection.start()));
    const reports = this.reports();
    for (const report of reports) {
      if (report.state !== 'connected')
        this.logger.error(
          { upstream: report.name, error: report.lastError, nextAttemptAt: report.nextAttemptAt },
          'upstream unavailable at start; retrying with back-off',
        );
    }
    return reports;
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
          ...(report.nextAttemptAt === undefined ? {} : { nextAttemptAt: report.nextAttemptAt }),
        },
      ]),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  /** Makes the host's registry match the upstream's tool list: add new, replace changed, remove gone. */
  private sync(connection: UpstreamConnection, tools: Tool[]): void {
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
