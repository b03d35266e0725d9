import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { checkPrincipalName } from '../../src/auth/principal-name.js';
import { SpillwayError } from '../../src/errors.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { connectClient, initializeRequest, postJson } from '../auth/helpers.js';
import { audience, startIssuer } from '../auth/oauth-issuer.js';
import { tempHost } from '../helpers/temp-host.js';
import { snapshotTree } from './tree-snapshot.js';

const folderSafe = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/);
/** "local" in every letter case, which a case-insensitive file system takes for the same folder. */
const localCases = fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }).map((upper) => [...'local'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

test('property: a credential may name any folder-safe principal except "local", in any letter case', () => {
  fc.assert(
    fc.property(fc.oneof(folderSafe, localCases), (name) => {
      if (name.toLowerCase() === 'local') {
        assert.throws(
          () => checkPrincipalName(name, 'claim'),
          (error: unknown) => SpillwayError.is(error) && error.code === 'PRINCIPAL_INVALID' && error.details?.reason === 'reserved',
          name,
        );
      } else {
        assert.equal(checkPrincipalName(name, 'claim'), name);
      }
    }),
  );
  // Names that only start like it keep their folders (existing sandboxes depend on them).
  for (const name of ['localhost', 'local2', 'local.user', 'locals', 'my-local']) assert.equal(checkPrincipalName(name, 'claim'), name);
});

// An identity provider's user whose sub is "local" once got the folder of stdio, the CLI and auth none.
test('oauth: a token whose sub (or principal claim) is "local" in any case never reaches the local principal folder', async (t) => {
  const issuer = await startIssuer(t, false);
  const env = await tempHost();
  t.after(() => env.cleanup());
  const local = await env.host.execute(
    { name: 'write_file', arguments: { path: 'args/secret.json', content: { written: 'over stdio' } } },
    { conversationId: 'shared' },
  );
  assert.equal(local.error, undefined, JSON.stringify(local.error));
  const localFolder = path.join(env.sandboxRoot, 'local');
  const before = await snapshotTree(localFolder);

  const auth = { mode: 'oauth' as const, issuer: issuer.url, audience, jwksUrl: issuer.jwksUrl };
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth });
  t.after(() => front.close());
  const byEmail = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: { ...auth, principalClaim: 'email' } });
  t.after(() => byEmail.close());

  const attempts: [string, string, string][] = [];
  for (const sub of ['local', 'LOCAL', 'Local']) attempts.push([sub, front.url, await issuer.sign({ sub })]);
  attempts.push(['email claim "local"', byEmail.url, await issuer.sign({ sub: 'bob', email: 'local' })]);
  for (const [name, url, token] of attempts) {
    const refused = await postJson(url, initializeRequest, { authorization: `Bearer ${token}`, 'mcp-conversation-id': 'shared' });
    assert.equal(refused.status, 401, name);
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token".*reserved/, name);
    await assert.rejects(connectClient(url, token), /reserved/, `${name}: the SDK client cannot connect either`);
  }
  assert.equal(front.sessionCount() + byEmail.sessionCount(), 0, 'no session was opened for "local"');

  // A real user in the same conversation name gets her own folder and cannot see the local one.
  const transport = new StreamableHTTPClientTransport(new URL(front.url), {
    requestInit: { headers: { authorization: `Bearer ${await issuer.sign({ sub: 'alice' })}`, 'mcp-conversation-id': 'shared' } },
  });
  const alice = new Client({ name: 'alice', version: '1.0.0' });
  await alice.connect(transport);
  t.after(() => alice.close());
  const read = await alice.callTool({ name: 'read_file', arguments: { path: 'args/secret.json' } });
  assert.equal(read.isError, true);
  assert.equal((read._meta as Record<string, { code: string }>)['spillway/error']?.code, 'PATH_NOT_FOUND');
  const written = await alice.callTool({ name: 'write_file', arguments: { path: 'args/mine.json', content: { by: 'alice' } } });
  assert.notEqual(written.isError, true, JSON.stringify(written.content));
  await access(path.join(env.sandboxRoot, 'alice', 'shared', 'args', 'mine.json'));

  assert.deepEqual(await snapshotTree(localFolder), before, 'nothing under local/ was written, changed or removed');
});

test('bearer: a token mapped to "local" (any letter case) stops the server from starting, naming the key', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const digest = (token: string) => createHash('sha256').update(token).digest('hex');
  for (const principal of ['local', 'Local']) {
    const auth = {
      mode: 'bearer' as const,
      tokens: [
        { principal: 'alice', sha256: digest('a-token') },
        { principal, sha256: digest('b-token') },
      ],
    };
    const starting = startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth });
    t.after(async () => (await starting.catch(() => undefined))?.close());
    await assert.rejects(
      starting,
      (error: unknown) =>
        SpillwayError.is(error) &&
        error.code === 'AUTH_CONFIG_INVALID' &&
        error.details?.key === 'server.auth.tokens[1].principal' &&
        error.details.reason === 'reserved' &&
        /reserved/.test(error.message),
      principal,
    );
  }
});
