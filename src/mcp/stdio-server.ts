import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Host } from '../host/host.js';
import { createMcpServer } from './mcp-server.js';

/** A conversation id for a stdio session: one process, one conversation. */
export function newStdioConversationId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `stdio-${stamp}-${randomBytes(4).toString('hex')}`;
}

/** Serves the host as MCP over this process's stdin/stdout until stdin closes. */
export async function serveStdio(host: Host, conversationId: string = newStdioConversationId()): Promise<{ closed: Promise<void> }> {
  const server = createMcpServer(host, { conversationId, caller: 'stdio' });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  host.logger.info({ conversationId }, 'MCP over stdio');
  return { closed };
}
