import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { connectClient } from './helpers.js';

// The identity contract: the front sets req.auth before the SDK transport sees the request, so
// MCP handlers get it as extra.authInfo (extra.authInfo.extra.principal names the principal).
test('every request reaches the SDK transport with req.auth naming its principal (absent with auth none)', async (t) => {
  const seen: (AuthInfo | undefined)[] = [];
  const original = StreamableHTTPServerTransport.prototype.handleRequest;
  StreamableHTTPServerTransport.prototype.handleRequest = function (this: StreamableHTTPServerTransport, request, ...rest) {
    seen.push((request as IncomingMessage & { auth?: AuthInfo }).auth);
    return original.call(this, request, ...rest);
  };
  t.after(() => {
    StreamableHTTPServerTransport.prototype.handleRequest = original;
  });
  const host = await tempHost();
  t.after(() => host.cleanup());

  const front = await startHttpFront(host.host, {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    auth: { mode: 'bearer', tokens: [{ principal: 'alice', secretEnv: 'TOKEN_ALICE' }] },
    env: { TOKEN_ALICE: 'a-token' },
  });
  t.after(() => front.close());
  const { client } = await connectClient(front.url, 'a-token');
  await client.listTools();
  await client.close();
  assert.ok(seen.length >= 3, 'initialize, initialized and tools/list went through the transport');
  for (const auth of seen) assert.deepEqual(auth, { token: 'a-token', clientId: 'alice', scopes: [], extra: { principal: 'alice' } });

  seen.length = 0;
  const local = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => local.close());
  const open = await connectClient(local.url);
  await open.client.listTools();
  await open.client.close();
  assert.ok(seen.length >= 3);
  assert.ok(
    seen.every((auth) => auth === undefined),
    'no auth info with auth none: the principal is local',
  );
});
