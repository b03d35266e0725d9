import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { connectClient, initializeRequest, postJson } from './helpers.js';

const auth = {
  mode: 'bearer' as const,
  tokens: [
    { principal: 'alice', secretEnv: 'TOKEN_ALICE' },
    { principal: 'bob', secretEnv: 'TOKEN_BOB' },
    { principal: 'carol', secretEnv: 'TOKEN_CAROL' },
  ],
};
const env = { TOKEN_ALICE: 'a-token', TOKEN_BOB: 'b-token', TOKEN_CAROL: 'c-token' };

test('over the per-principal cap an initialize gets 429 with code SESSION_LIMIT; other principals still open sessions; closing one frees the slot', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth, env, maxSessions: 10, maxSessionsPerPrincipal: 2 });
  t.after(() => front.close());
  const first = await connectClient(front.url, 'a-token');
  await connectClient(front.url, 'a-token');

  const refused = await postJson(front.url, initializeRequest, { authorization: 'Bearer a-token' });
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '60');
  assert.equal(refused.json.error?.data?.code, 'SESSION_LIMIT');
  assert.equal(refused.json.error?.data?.retryable, true);
  assert.deepEqual(refused.json.error?.data?.details, { scope: 'principal', principal: 'alice', open: 2, limit: 2 });
  // The SDK client sees the status and the body, code included.
  await assert.rejects(
    connectClient(front.url, 'a-token'),
    (error: unknown) => error instanceof StreamableHTTPError && error.code === 429 && /SESSION_LIMIT/.test(error.message),
  );
  assert.equal(front.sessionCount(), 2);

  const bob = await connectClient(front.url, 'b-token');
  assert.ok((await bob.client.listTools()).tools.length > 0);

  await first.transport.terminateSession();
  assert.equal(front.sessionCount(), 2, "alice's DELETE closed her session");
  const again = await connectClient(front.url, 'a-token');
  assert.ok((await again.client.listTools()).tools.length > 0, 'the freed slot is usable');
});

test('over server.maxSessions an initialize gets 503 with code SESSION_LIMIT, whoever asks', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth, env, maxSessions: 2, maxSessionsPerPrincipal: 5 });
  t.after(() => front.close());
  await connectClient(front.url, 'a-token');
  await connectClient(front.url, 'b-token');
  const refused = await postJson(front.url, initializeRequest, { authorization: 'Bearer c-token' });
  assert.equal(refused.status, 503);
  assert.equal(refused.json.error?.data?.code, 'SESSION_LIMIT');
  assert.equal(refused.json.error?.data?.details.scope, 'server');
  assert.equal(refused.json.error?.data?.details.limit, 2);
  assert.equal(front.sessionCount(), 2);
});

test('idle sessions closed by the sweep no longer count against the caps', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  let time = Date.parse('2026-01-01T00:00:00Z');
  const front = await startHttpFront(host.host, {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    auth,
    env,
    maxSessions: 1,
    sessionIdleMs: 60_000,
    now: () => time,
  });
  t.after(() => front.close());
  const { transport } = await connectClient(front.url, 'a-token');
  await transport.close();
  assert.equal((await postJson(front.url, initializeRequest, { authorization: 'Bearer b-token' })).status, 503);
  // The dropped connections reach the server as socket closes; move the clock until the sweep takes the session.
  for (let turn = 0; front.closeIdleSessions() === 0; turn += 1) {
    assert.ok(turn < 2_000, 'the session was never closed as idle');
    time += 60_000;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(front.sessionCount(), 0);
  const bob = await connectClient(front.url, 'b-token');
  assert.ok((await bob.client.listTools()).tools.length > 0);
});
