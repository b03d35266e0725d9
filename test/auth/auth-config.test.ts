import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';

function configError(auth: unknown): string {
  try {
    loadConfig({ env: {}, overrides: { server: { auth } } });
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

test('server.auth defaults to none and accepts each mode with its keys', () => {
  assert.deepEqual(loadConfig({ env: {} }).server.auth, { mode: 'none' });
  const bearer = {
    mode: 'bearer',
    tokens: [
      { principal: 'alice', secretEnv: 'T' },
      { principal: 'bob', sha256: 'a'.repeat(64) },
    ],
  };
  assert.deepEqual(loadConfig({ env: {}, overrides: { server: { auth: bearer } } }).server.auth, bearer);
  const oauth = { mode: 'oauth', issuer: 'https://login.example.com', audience: 'https://spillway.example.com/mcp', requiredScopes: ['mcp'] };
  assert.deepEqual(loadConfig({ env: {}, overrides: { server: { auth: oauth } } }).server.auth, oauth);
  assert.equal(loadConfig({ env: {} }).server.maxSessions, 1000);
  assert.equal(loadConfig({ env: {} }).server.maxSessionsPerPrincipal, 250);
});

test('server.auth refuses a token without a secret, a bad hash, a principal that is not a folder name, an OAuth issuer that is not a URL', () => {
  for (const auth of [
    { mode: 'bearer', tokens: [] },
    { mode: 'bearer', tokens: [{ principal: 'alice' }] },
    { mode: 'bearer', tokens: [{ principal: 'alice', sha256: 'abc' }] },
    { mode: 'bearer', tokens: [{ principal: '../x', secretEnv: 'T' }] },
    { mode: 'bearer', tokens: [{ principal: 'alice', secretEnv: 'T', sha256: 'a'.repeat(64) }] },
    { mode: 'oauth', issuer: 'login.example.com', audience: 'x' },
    { mode: 'oauth', issuer: 'https://login.example.com' },
    { mode: 'basic' },
  ]) {
    assert.match(configError(auth), /server\.auth/, JSON.stringify(auth));
  }
});
