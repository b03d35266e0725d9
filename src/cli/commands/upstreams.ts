import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/load-config.js';
import { createLogger } from '../../log/logger.js';
import { UpstreamConnection, type UpstreamStatus } from '../../upstream/upstream-connection.js';
import { exposedToolName } from '../../upstream/upstream-tool.js';
import { commandLogLevel } from '../command-log-level.js';
import type { CliIo } from '../output.js';

export const upstreamsUsage = `spillway upstreams [--config FILE] [--json]

Connects once to every upstream MCP server in the configuration (the same way
\`spillway serve\` does), lists each one's state and tools as offered
(NAME__tool), or the error and the server's last stderr lines, then disconnects.
Exit code 0 when every upstream connected, 1 when one did not.

  --config FILE   configuration (default SPILLWAY_CONFIG, then config/default.json)
  --json          print the state of each upstream as JSON

Examples:
  spillway upstreams --config spillway.json
  spillway upstreams --json | jq '.upstreams[] | {name, state}'`;

export async function upstreamsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  const config = loadConfig({ file: values.config });
  const logger = createLogger(commandLogLevel(config.log.level));
  const connections = Object.entries(config.upstreams).map(
    ([name, entry]) => new UpstreamConnection({ name, entry, settings: config.upstream, logger, reconnect: false }),
  );
  let statuses: UpstreamStatus[];
  try {
    await Promise.all(connections.map((connection) => connection.start()));
    statuses = connections.map((connection) => connection.status());
  } finally {
    await Promise.all(connections.map((connection) => connection.close()));
  }
  if (values.json) {
    io.out(
      JSON.stringify(
        { upstreams: statuses.map((status) => ({ ...status, offered: status.tools.map((tool) => exposedToolName(status.name, tool)) })) },
        null,
        2,
      ),
    );
  } else if (statuses.length === 0) {
    io.out('No upstream MCP servers are configured (config key "upstreams").');
  } else {
    for (const status of statuses) io.out(describe(status));
  }
  return statuses.every((status) => status.state === 'connected') ? 0 : 1;
}

function describe(status: UpstreamStatus): string {
  const head = `${status.name} (${status.transport}: ${status.target}): ${status.state === 'connected' ? 'connected' : 'NOT CONNECTED'}`;
  if (status.state !== 'connected') return `${head}\n  ${(status.lastError ?? 'unknown error').replace(/\n/g, '\n  ')}`;
  const server = status.server === undefined ? '' : `  server: ${status.server.name} ${status.server.version}\n`;
  const tools = status.tools.map((tool) => `    ${exposedToolName(status.name, tool)}`).join('\n');
  return `${head}\n${server}  ${status.tools.length} tools:\n${tools}`;
}

/** The verb as `spillway` runs it. */
export const command = { run: upstreamsCommand, usage: upstreamsUsage };
