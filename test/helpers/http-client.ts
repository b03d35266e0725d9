import type { TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Host } from '../../src/host/host.js';
import { startHttpFront, type HttpFront } from '../../src/mcp/http-server.js';

/**
 * The host's HTTP front on a free loopback port and an SDK client connected to
 * it; both close when the test ends. The client's conversation is its session id.
 */
export async function connectHttpClient(t: TestContext, host: Host): Promise<{ client: Client; front: HttpFront; sessionId: string }> {
  const front = await startHttpFront(host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const client = new Client({ name: 'test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(front.url));
  await client.connect(transport);
  t.after(() => client.close());
  return { client, front, sessionId: transport.sessionId as string };
}
