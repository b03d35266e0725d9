import { parseArgs } from 'node:util';
import { startHttpFront } from '../../mcp/http-server.js';
import { newStdioConversationId, serveStdio } from '../../mcp/stdio-server.js';
import { startRuntime } from '../../runtime/start-runtime.js';
import type { CliIo } from '../output.js';

export const serveUsage = `spillway serve [--stdio] [--config FILE] [--host HOST] [--port PORT] [--conversation ID]

Serves the host's tools over MCP: Streamable HTTP on 127.0.0.1 by default, or
stdio with --stdio (one process = one conversation; --conversation resumes one).`;

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
  const runtime = await startRuntime({ configFile: values.config });
  const { host, config } = runtime;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    await runtime.stop();
  };

  if (values.stdio) {
    const conversationId = values.conversation ?? newStdioConversationId();
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
  const front = await startHttpFront(host, { host: values.host ?? config.server.host, port, path: config.server.path, sessionIdleMs: config.server.sessionIdleMs });
  host.onClose(() => front.close());
  io.out(
    [
      `spillway is serving MCP (Streamable HTTP) at ${front.url}`,
      `  sandbox: ${host.sandbox.root}`,
      `  health:  ${front.url.replace(config.server.path, '/healthz')}`,
      `  connect: claude mcp add --transport http spillway ${front.url}`,
      '  (stdio clients: spillway serve --stdio; Ctrl-C stops)',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const finish = (signal: string) => void stop(signal).then(resolve);
    process.once('SIGINT', () => finish('SIGINT'));
    process.once('SIGTERM', () => finish('SIGTERM'));
  });
  return 0;
}
