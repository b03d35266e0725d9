import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { connectClient, initializeRequest, postJson } from './helpers.js';

const aliceToken = 'alice-secret-6f1d2c9a8b7e';
const bobToken = 'bob-secret-0a9b8c7d6e5f';
const bearerAuth = {
  mode: 'bearer' as const,
  tokens: [
    { principal: 'alice', secretEnv: 'SPILLWAY_TOKEN_ALICE' },
    { principal: 'bob', sha256: createHash('sha256').update(bobToken).digest('hex') },
  ],
};
const env = { SPILLWAY_TOKEN_ALICE: aliceToken };

/** A host whose logger writes into `lines`, at debug level so nothing is filtered out. */
async function loggedHost(lines: string[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return tempHost({}, { logger: pino({ level: 'debug' }, sink) });
}

test('bearer: no token and a wrong token get 401 with WWW-Authenticate; a good token works', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth, env });
  t.after(() => front.close());

  const none = await postJson(front.url, initializeRequest);
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="spillway"');
  const wrong = await postJson(front.url, initializeRequest, { authorization: 'Bearer not-a-token' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer realm="spillway", error="invalid_token"/);
  const scheme = await postJson(front.url, initializeRequest, { authorization: `Basic ${aliceToken}` });
  assert.equal(scheme.status, 401);
  assert.match(scheme.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
  assert.equal(front.sessionCount(), 0, 'no refused request opened a session');

  await assert.rejects(connectClient(front.url, 'wrong'), (error: unknown) => error instanceof StreamableHTTPError && error.code === 401);
  for (const token of [aliceToken, bobToken]) {
    const { client } = await connectClient(front.url, token);
    t.after(() => client.close());
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'read_file'));
  }
  assert.equal(front.sessionCount(), 2);
});

test('bearer: a session belongs to the principal that opened it; another principal is told it does not exist and changes nothing', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth, env });
  t.after(() => front.close());
  const alice = await connectClient(front.url, aliceToken);
  t.after(() => alice.client.close());
  const sessionId = alice.transport.sessionId ?? '';

  const asBob = await postJson(
    front.url,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { authorization: `Bearer ${bobToken}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
  );
  assert.equal(asBob.status, 404);
  assert.match(asBob.json.error?.message ?? '', /Unknown or expired session/);
  const deleteAsBob = await fetch(front.url, { method: 'DELETE', headers: { authorization: `Bearer ${bobToken}`, 'mcp-session-id': sessionId } });
  assert.equal(deleteAsBob.status, 404);
  const withoutToken = await postJson(front.url, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, { 'mcp-session-id': sessionId });
  assert.equal(withoutToken.status, 401);

  assert.equal(front.sessionCount(), 1, "alice's session is still open");
  assert.ok((await alice.client.listTools()).tools.length > 0, 'and still answers alice');
});

test('bearer: secrets are never logged, and a missing secret variable refuses to start naming the key', async (t) => {
  const lines: string[] = [];
  const host = await loggedHost(lines);
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth, env });
  t.after(() => front.close());
  const { client } = await connectClient(front.url, aliceToken);
  await client.callTool({ name: 'list_files', arguments: {} });
  await client.close();
  await postJson(front.url, initializeRequest, { authorization: `Bearer ${bobToken}x` });
  await postJson(front.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { authorization: `Bearer ${bobToken}`, 'mcp-session-id': 'nope' });
  assert.ok(lines.length > 0, 'the logger wrote something');
  const logged = lines.join('');
  assert.ok(logged.includes('alice'), 'the principal is logged');
  for (const secret of [aliceToken, bobToken]) assert.ok(!logged.includes(secret), 'no token appears in the log');

  await assert.rejects(
    startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth, env: {} }),
    (error: unknown) =>
      (error as { code?: string }).code === 'AUTH_CONFIG_INVALID' &&
      /server\.auth\.tokens\[0\]\.secretEnv/.test((error as Error).message) &&
      /SPILLWAY_TOKEN_ALICE/.test((error as Error).message),
  );
});

test('auth none is refused on an address other machines reach, before anything listens', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  for (const address of ['0.0.0.0', '::', '192.0.2.10']) {
    await assert.rejects(
      startHttpFront(host.host, { host: address, port: 0, path: '/mcp' }),
      (error: unknown) => (error as { code?: string }).code === 'AUTH_CONFIG_INVALID' && /server\.auth/.test((error as Error).message),
      address,
    );
  }
  // With a token configured the same address is fine.
  const front = await startHttpFront(host.host, { host: '0.0.0.0', port: 0, path: '/mcp', auth: bearerAuth, env });
  await front.close();
});

test('bearer: /healthz and /readyz stay open for load balancers; /metrics needs a token', async (t) => {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth, env });
  t.after(() => front.close());
  const origin = new URL(front.url).origin;
  assert.equal((await fetch(`${origin}/healthz`)).status, 200);
  assert.equal((await fetch(`${origin}/readyz`)).status, 200);
  const anonymous = await fetch(`${origin}/metrics`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="spillway"');
  const scraped = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(scraped.status, 200);
  assert.match(await scraped.text(), /# TYPE /);
});
