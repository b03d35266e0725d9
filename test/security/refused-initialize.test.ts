import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { connectClient, initializeRequest, postJson } from '../auth/helpers.js';
import { tempHost } from '../helpers/temp-host.js';

const auth = { mode: 'bearer' as const, tokens: [{ principal: 'alice', secretEnv: 'TOKEN_ALICE' }] };
const env = { TOKEN_ALICE: 'a-token' };
const good = { authorization: 'Bearer a-token' };

/** An initialize whose Host header is not this server: refused by the SDK transport's DNS-rebinding check, after it exists. */
function postWithHost(url: string, hostHeader: string, credentials: Record<string, string> = good): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', headers: { host: hostHeader, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...credentials } },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve(incoming.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(initializeRequest));
  });
}

// Once, a cross-origin text/plain initialize (which any web page can send) left an MCP server
// attached to the host's events; enough of them broke every file-producing tool until restart.
test('refused and malformed initialize requests leave no session, server or listener behind; exports in another session still work', async (t) => {
  const host = await tempHost({ spill: { thresholdChars: 1, tools: {} } });
  t.after(() => host.cleanup());
  host.host.registerTool({ name: 'list_items', description: 'items', inputSchema: { type: 'object' }, handler: () => ({ value: [{ id: 1 }, { id: 2 }] }) });
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth, env });
  t.after(() => front.close());
  const other = await connectClient(front.url, 'a-token');
  t.after(() => other.client.close());
  const listeners = () => ({ tools: host.host.listenerCount('tools-changed'), attachments: host.host.listenerCount('attachment') });
  const before = listeners();

  const body = JSON.stringify(initializeRequest);
  const refusals: [string, () => Promise<number>][] = [
    ['text/plain (a cross-origin form post)', async () => (await postJson(front.url, body, { ...good, 'content-type': 'text/plain' })).status],
    [
      'no content type',
      async () => (await fetch(front.url, { method: 'POST', headers: { ...good, accept: 'application/json, text/event-stream' }, body })).status,
    ],
    ['bad JSON', async () => (await postJson(front.url, '{"jsonrpc": "2.0", "method": "initialize"', good)).status],
    ['wrong Accept', async () => (await postJson(front.url, body, { ...good, accept: 'text/html' })).status],
    ['no token', async () => (await postJson(front.url, body)).status],
    ['wrong token', async () => (await postJson(front.url, body, { authorization: 'Bearer b-token' })).status],
    ['a batch with initialize', async () => (await postJson(front.url, [initializeRequest, { ...initializeRequest, id: 2 }], good)).status],
    ['a foreign Host header (DNS rebinding)', () => postWithHost(front.url, 'evil.example')],
  ];
  for (let round = 0; round < 15; round += 1) {
    for (const [name, send] of refusals) {
      const status = await send();
      assert.ok(status >= 400 && status < 500, `${name}: refused with a 4xx (got ${status})`);
    }
  }
  assert.equal(front.sessionCount(), 1, 'only the working session is open');
  assert.deepEqual(listeners(), before, 'no refused request left a listener on the host');

  const listed = await other.client.callTool({ name: 'list_items', arguments: {} });
  const spill = (listed._meta as Record<string, { path: string }>)['spillway/spill'];
  assert.ok(spill, 'the rows spilled');
  const exported = await other.client.callTool({ name: 'export_table', arguments: { source: spill.path, format: 'csv' } });
  assert.equal(exported.isError, false, JSON.stringify(exported.content));
  assert.ok((exported.content as { type: string }[]).some((block) => block.type === 'resource_link'));
});

// Auth "none" is allowed on all of 127.0.0.0/8, so the DNS-rebinding check must cover the same range.
test('without auth on another loopback address (127.0.0.2), a foreign Host header is refused and the bound name is accepted', async (t) => {
  const host = await tempHost({});
  t.after(() => host.cleanup());
  let front: Awaited<ReturnType<typeof startHttpFront>>;
  try {
    front = await startHttpFront(host.host, { host: '127.0.0.2', port: 0, path: '/mcp' });
  } catch (error) {
    t.skip(`cannot listen on 127.0.0.2 here: ${(error as Error).message}`);
    return;
  }
  t.after(() => front.close());
  const port = new URL(front.url).port;
  assert.equal(await postWithHost(front.url, `evil.example:${port}`, {}), 403);
  assert.equal(await postWithHost(front.url, `127.0.0.2:${port}`, {}), 200);
});
