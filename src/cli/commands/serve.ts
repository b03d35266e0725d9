import { parseArgs } from 'node:util';
import { startHttpFront, type HttpFront } from '../../mcp/http-server.js';
import { newStdioConversationId, serveStdio } from '../../mcp/stdio-server.js';
import { loadConfig } from '../../config/load-config.js';
import { createStartupLogger } from '../../log/logger.js';
import { startRuntime, type Runtime } from '../../runtime/start-runtime.js';
import { prepareSqlSourceAtStartup } from '../../sql/describe-at-startup.js';
import type { CliIo } from '../output.js';
import { checkWritableFolder, startFailed } from '../startup-checks.js';

export const serveUsage = `spillway serve [--stdio] [--config FILE] [--host HOST] [--port PORT] [--conversation ID]

Serves the host's tools over MCP: Streamable HTTP on 127.0.0.1 by default, or
stdio with --stdio (one process = one conversation; --conversation resumes one).
A --host other than loopback needs server.auth (bearer tokens or OAuth): see
docs/auth.md.

  --stdio            MCP over standard input and output (the client starts spillway)
  --config FILE      configuration (default SPILLWAY_CONFIG, then config/default.json)
  --host HOST        address to listen on (default server.host, 127.0.0.1)
  --port PORT        TCP port, 0 picks a free one (default server.port, 8787)
  --conversation ID  with --stdio: the conversation to resume (default: a new one)

Examples:
  spillway serve
  spillway serve --port 9000 --config spillway.json
  spillway serve --stdio --conversation quarterly-report

Logs are JSON lines on stderr (log.level, default info). A start that fails
prints one line on stderr, no log lines, and exits 1; bad options exit 2.`;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stdio: { type: 'boolean', default: false },
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      conversation: { type: 'string' },
    },
    strict: true,
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (values.port?.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535)) {
    io.err(`spillway serve: --port must be an integer from 0 to 65535 (got ${JSON.stringify(values.port)}).`);
    return 2;
  }
  const checked = loadConfig({ file: values.config });
  await checkWritableFolder(checked.sandbox.root, 'sandbox.root');
  // The start's log lines wait: a start that fails ends with one line, not a log.
  const startup = createStartupLogger(checked.log.level);
  let runtime: Runtime | undefined;
  let served: () => Promise<number>;
  try {
    runtime = await startRuntime({ configFile: values.config, logger: startup.logger });
    const sqlSource = prepareSqlSourceAtStartup({ config: runtime.config, logger: runtime.logger });
    served = values.stdio
      ? await startStdio(runtime, { conversation: values.conversation, sqlSource, io })
      : await startHttp(runtime, { host: values.host, port, sqlSource, io });
    startup.release();
    runtime.host.emit('serving');
  } catch (error) {
    startFailed(startup);
    await runtime?.stop();
    throw error;
  }
  return served();
}

interface StdioOptions {
  conversation: string | undefined;
  sqlSource: string;
  io: CliIo;
}

/** Serves over stdio; resolves, once serving, with the wait for stdin to close or a signal. */
async function startStdio(runtime: Runtime, options: StdioOptions): Promise<() => Promise<number>> {
  const { host } = runtime;
  const conversationId = options.conversation ?? newStdioConversationId();
  // stdout is the transport here: the banner goes to stderr.
  options.io.err(`spillway is serving MCP over stdio (conversation ${conversationId})\n  sandbox: ${host.sandbox.root}\n  query_sql: ${options.sqlSource}`);
  const { closed } = await serveStdio(host, conversationId);
  const stop = stopOnce(runtime);
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  return async () => {
    await closed;
    await stop('stdin closed');
    return 0;
  };
}

interface HttpOptions {
  host: string | undefined;
  port: number | undefined;
  sqlSource: string;
  io: CliIo;
}

/** Serves over Streamable HTTP and prints the banner; resolves with the wait for SIGINT or SIGTERM. */
async function startHttp(runtime: Runtime, options: HttpOptions): Promise<() => Promise<number>> {
  const { host, config } = runtime;
  const front: HttpFront = await startHttpFront(host, {
    host: options.host ?? config.server.host,
    port: options.port ?? config.server.port,
    path: config.server.path,
    // Session caps, idle times and connection limits come from the host's config (server.*).
    auth: config.server.auth,
  });
  host.onClose(() => front.close());
  options.io.out(
    [
      `spillway is serving MCP (Streamable HTTP) at ${front.url}`,
      `  sandbox: ${host.sandbox.root}`,
      `  query_sql: ${options.sqlSource}`,
      `  health: ${front.url.replace(config.server.path, '/healthz')}`,
      `  connect: claude mcp add --transport http spillway ${front.url}${config.server.auth.mode === 'none' ? '' : ' --header "Authorization: Bearer $TOKEN"'}`,
      `  auth: ${config.server.auth.mode}${config.server.auth.mode === 'none' ? ' (loopback only)' : ' (docs/auth.md)'}`,
      `  inspect: npx @modelcontextprotocol/inspector  (Transport: Streamable HTTP, URL: ${front.url})`,
      '  more clients (Claude Desktop, stdio, SDK): docs/connect.md; try `spillway demo` for a walkthrough. Ctrl-C stops.',
    ].join('\n'),
  );
  const stop = stopOnce(runtime);
  const stopped = new Promise<number>((resolve) => {
    const finish = (signal: string) => void stop(signal).then(() => resolve(0));
    process.once('SIGINT', () => finish('SIGINT'));
    process.once('SIGTERM', () => finish('SIGTERM'));
  });
  return () => stopped;
}

function stopOnce(runtime: Runtime): (signal: string) => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (signal) => {
    if (stopping === undefined) {
      runtime.logger.info({ signal }, 'shutting down');
      stopping = runtime.stop();
    }
    return stopping;
  };
}

/** The verb as `spillway` runs it. */
export const command = { run: serveCommand, usage: serveUsage };
