import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An MCP SDK client over HTTP that sends `Authorization: Bearer <token>` when given one (as docs/auth.md shows). */
export async function connectClient(url: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
  );
  const client = new Client({ name: 'auth-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A raw JSON-RPC POST to the MCP endpoint, as a client or an attacker sends it. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Headers;
  json: { error?: { code: number; message: string; data?: { code: string; details: Record<string, unknown>; retryable: boolean } } };
}> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json = {};
  try {
    json = JSON.parse(text) as object;
  } catch {
    // An SSE answer: the status and headers are what the caller checks.
  }
  return { status: response.status, headers: response.headers, json };
}

export const initializeRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};
