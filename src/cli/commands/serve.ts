import { parseArgs } from 'node:util';
import { startHttpFront, type HttpFront } from '../../mcp/http-server.js';
import { newStdioConversationId, serveStdio } from '../../mcp/stdio-server.js';
import { loadConfig } from '../../config/load-config.js';
import { startRuntime } from '../../runtime/start-runtime.js';
import { prepareSqlSourceAtStartup } from '../../sql/describe-at-startup.js';
import type { CliIo } from '../output.js';
import { checkWritableFolder, startupError } from '../startup-checks.js';

export const serveUsage = `spillway serve [--stdio] [--config FILE] [--host HOST] [--port PORT] [--conversation ID]

Serves the host's tools over MCP: Streamable HTTP on 127.0.0.1 by default, or
stdio with --stdio (one process = one conversation; --conversation resumes one).
A --host other than loopback needs server.auth (bearer tokens or OAuth): see
docs/auth.md. A start-up failure ends with one line on stderr and exit code 1.`;

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
  const runtime = await checkWritableFolder(loadConfig({ file: values.config }).sandbox.root, 'sandbox.root')
    .then(() => startRuntime({ configFile: values.config }))
    .catch((error: unknown) => {
      throw startupError(error);
    });
  const { host, config } = runtime;
  let sqlSource: string;
  try {
    sqlSource = prepareSqlSourceAtStartup({ config, logger: runtime.logger });
  } catch (error) {
    await runtime.stop();
    throw error;
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    await runtime.stop();
  };

  if (values.stdio) {
    const conversationId = values.conversation ?? newStdioConversationId();
    // stdout is the transport here: the banner goes to stderr.
    io.err(`spillway is serving MCP over stdio (conversation ${conversationId})\n  sandbox: ${host.sandbox.root}\n  query_sql: ${sqlSource}`);
    const { closed } = await serveStdio(host, conversationId);
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
    await closed;
    await stop('stdin closed');
    return 0;
  }

  const port = values.port === undefined ? config.server.port : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.err(`spillway serve: --port must be an integer from 0 to 65535 (got ${values.port})`);
    await runtime.stop();
    return 2;
  }
  let front: HttpFront;
  try {
    front = await startHttpFront(host, {
      host: values.host ?? config.server.host,
      port,
      path: config.server.path,
      sessionIdleMs: config.server.sessionIdleMs,
      auth: config.server.auth,
      maxSessions: config.server.maxSessions,
      maxSessionsPerPrincipal: config.server.maxSessionsPerPrincipal,
    });
  } catch (error) {
    await runtime.stop();
    throw error;
  }
  host.onClose(() => front.close());
  io.out(
    [
      `spillway is serving MCP (Streamable HTTP) at ${front.url}`,
      `  sandbox: ${host.sandbox.root}`,
      `  query_sql: ${sqlSource}`,
      `  health: ${front.url.replace(config.server.path, '/healthz')}`,
      `  connect: claude mcp add --transport http spillway ${front.url}${config.server.auth.mode === 'none' ? '' : ' --header "Authorization: Bearer $TOKEN"'}`,
      `  auth: ${config.server.auth.mode}${config.server.auth.mode === 'none' ? ' (loopback only)' : ' (docs/auth.md)'}`,
      `  inspect: npx @modelcontextprotocol/inspector  (Transport: Streamable HTTP, URL: ${front.url})`,
      '  more clients (Claude Desktop, stdio, SDK): docs/connect.md; try `spillway demo` for a walkthrough. Ctrl-C stops.',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const finish = (signal: string) => void stop(signal).then(resolve);
    process.once('SIGINT', () => finish('SIGINT'));
    process.once('SIGTERM', () => finish('SIGTERM'));
  });
  return 0;
}
