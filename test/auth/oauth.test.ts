import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { generateKeyPair } from 'jose';
import { startHttpFront, type HttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { connectClient, initializeRequest, postJson } from './helpers.js';
import { audience, startIssuer, type Issuer } from './oauth-issuer.js';

async function oauthFront(t: TestContext, issuer: Issuer, extra: Record<string, unknown> = {}): Promise<HttpFront> {
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    auth: { mode: 'oauth', issuer: issuer.url, audience, jwksUrl: issuer.jwksUrl, requiredScopes: ['mcp:tools'], ...extra },
  });
  t.after(() => front.close());
  return front;
}

test('oauth: no token gets 401 pointing at the protected-resource metadata, which names the issuer', async (t) => {
  const issuer = await startIssuer(t, false);
  const front = await oauthFront(t, issuer);
  const origin = new URL(front.url).origin;

  const refused = await postJson(front.url, initializeRequest);
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`);

  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const response = await fetch(`${origin}${path}`);
    assert.equal(response.status, 200, path);
    assert.deepEqual(await response.json(), {
      resource: front.url,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
      resource_name: 'spillway',
    });
  }
  assert.equal(front.sessionCount(), 0);
});

test('oauth: a good token opens a session; wrong audience, expired, foreign key, missing scope and an unusable sub are refused', async (t) => {
  const issuer = await startIssuer(t, false);
  const front = await oauthFront(t, issuer);

  const { client } = await connectClient(front.url, await issuer.sign());
  t.after(() => client.close());
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'read_file'));

  const stranger = await generateKeyPair('ES256');
  const cases: [string, string, number, RegExp][] = [
    ['wrong audience', await issuer.sign({}, { audience: 'https://other.example/mcp' }), 401, /error="invalid_token".*'aud'/],
    ['expired', await issuer.sign({}, { expiresAt: Math.floor(Date.now() / 1000) - 3600 }), 401, /error="invalid_token".*'exp'/],
    ['signed by another key', await issuer.sign({}, { key: stranger.privateKey }), 401, /error="invalid_token"/],
    ['without the scope', await issuer.sign({ scope: 'other' }), 403, /error="insufficient_scope"/],
    ['sub not a folder name', await issuer.sign({ sub: '../bob' }), 401, /error="invalid_token".*principal/],
    ['sub naming the local principal', await issuer.sign({ sub: 'local' }), 401, /error="invalid_token".*reserved/],
    ['not a JWT', 'abc.def', 401, /error="invalid_token"/],
  ];
  for (const [name, token, status, challenge] of cases) {
    const refused = await postJson(front.url, initializeRequest, { authorization: `Bearer ${token}` });
    assert.equal(refused.status, status, name);
    assert.match(refused.headers.get('www-authenticate') ?? '', challenge, name);
    assert.match(refused.headers.get('www-authenticate') ?? '', /resource_metadata="/, name);
  }
  assert.equal(front.sessionCount(), 1, 'only the good token opened a session');
});

test('oauth: the token clock is injectable, and a token for another principal cannot use the session', async (t) => {
  const issuer = await startIssuer(t, false);
  const host = await tempHost();
  t.after(() => host.cleanup());
  const later = new Date(Date.now() + 3_600_000);
  const front = await startHttpFront(host.host, {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    auth: { mode: 'oauth', issuer: issuer.url, audience, jwksUrl: issuer.jwksUrl },
    authNow: () => later,
  });
  t.after(() => front.close());
  const valid = await issuer.sign();
  assert.equal((await postJson(front.url, initializeRequest, { authorization: `Bearer ${valid}` })).status, 401, 'expired an hour from now');
  const alice = await connectClient(front.url, await issuer.sign({}, { expiresAt: Math.floor(later.getTime() / 1000) + 300 }));
  t.after(() => alice.client.close());
  const bobToken = await issuer.sign({ sub: 'bob' }, { expiresAt: Math.floor(later.getTime() / 1000) + 300 });
  const asBob = await postJson(
    front.url,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { authorization: `Bearer ${bobToken}`, 'mcp-session-id': alice.transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
  );
  assert.equal(asBob.status, 404);
});

test('oauth: without jwksUrl the keys are found through the issuer metadata; an issuer without metadata refuses to start', async (t) => {
  const withMetadata = await startIssuer(t, true);
  const host = await tempHost();
  t.after(() => host.cleanup());
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: { mode: 'oauth', issuer: withMetadata.url, audience } });
  t.after(() => front.close());
  const { client } = await connectClient(front.url, await withMetadata.sign());
  t.after(() => client.close());
  assert.ok((await client.listTools()).tools.length > 0);

  const bare = await startIssuer(t, false);
  await assert.rejects(
    startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: { mode: 'oauth', issuer: bare.url, audience } }),
    (error: unknown) => (error as { code?: string }).code === 'AUTH_CONFIG_INVALID' && /server\.auth\.jwksUrl/.test((error as Error).message),
  );
});

test('oauth: when the signing keys cannot be fetched a request gets 503 with Retry-After, not 401', async (t) => {
  const issuer = await startIssuer(t, false);
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const deadUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/jwks.json`;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const front = await oauthFront(t, issuer, { jwksUrl: deadUrl });
  const refused = await postJson(front.url, initializeRequest, { authorization: `Bearer ${await issuer.sign()}` });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '5');
  assert.match(refused.json.error?.message ?? '', /signing keys cannot be fetched/);
  assert.equal(front.sessionCount(), 0);
});
