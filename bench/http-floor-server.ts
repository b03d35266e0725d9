// The floor of one MCP call over Streamable HTTP on this machine, for the delegation bench:
// a server that does nothing but answer, in its own process, printing its port.
//   raw: node:http answering each JSON-RPC request at once with one SSE event (no session
//        checks, no validation): what the SDK client and loopback HTTP cost by themselves.
//   sdk: the MCP SDK's McpServer on its StreamableHTTPServerTransport, one tool.
// Both answer tools/call with the same ~500-character text.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const text = 'x'.repeat(500);

function rawAnswer(request: IncomingMessage, response: ServerResponse): void {
  if (request.method !== 'POST') {
    // No standalone stream (GET) and no session to end (DELETE): the client copes with 405.
    response.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const result =
      message.method === 'initialize'
        ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } }
        : message.method === 'tools/call'
          ? { content: [{ type: 'text', text }] }
          : {};
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 'raw' });
    response.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
  });
}

function sdkServer(): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (request, response) => {
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session: string): void => void sessions.set(session, created),
      });
      const server = new McpServer({ name: 'sdk', version: '1' });
      server.registerTool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text }] }));
      await server.connect(created);
      transport = created;
    }
    await transport?.handleRequest(request, response);
  };
}

const handler = process.argv[2] === 'sdk' ? sdkServer() : rawAnswer;
const server = createServer((request, response) => void handler(request, response));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : ''}\n`);
});
