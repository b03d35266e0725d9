import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bearerTokenOf } from '../../src/auth/auth-result.js';
import { isLoopbackHost } from '../../src/auth/loopback.js';
import { checkPrincipalName } from '../../src/auth/principal-name.js';

test('loopback addresses are 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost; nothing else', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
    assert.ok(isLoopbackHost(host), host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', 'localhost.example.com', '::ffff:10.0.0.1', ''])
    assert.ok(!isLoopbackHost(host), host);
});

test('property: an Authorization header yields its bearer token exactly, whatever the token, and nothing for other schemes', () => {
  const token = fc.stringMatching(/^[\x21-\x7e]{1,80}$/);
  fc.assert(
    fc.property(token, fc.constantFrom('Bearer', 'bearer', 'BEARER'), (value, scheme) => {
      assert.deepEqual(bearerTokenOf(`${scheme} ${value}`), { token: value });
    }),
  );
  fc.assert(
    fc.property(fc.string(), (header) => {
      const result = bearerTokenOf(header);
      if ('token' in result) assert.ok(/^bearer +\S+ *$/i.test(header), header);
    }),
  );
  assert.deepEqual(bearerTokenOf(undefined), { missing: true });
  assert.deepEqual(bearerTokenOf('Basic abc'), { malformed: true });
  assert.deepEqual(bearerTokenOf('Bearer a b'), { malformed: true });
});

test('principal names from credentials are folder names', () => {
  for (const name of ['alice', 'svc-ci_01', 'alice@example.com', 'a.b']) assert.equal(checkPrincipalName(name, 'claim'), name);
  for (const name of ['', '.', '..', '../x', 'a/b', '.hidden', 'x'.repeat(65), 'a b', 42, undefined]) {
    assert.throws(
      () => checkPrincipalName(name, 'claim'),
      (error: unknown) => (error as { code?: string }).code === 'PRINCIPAL_INVALID',
      String(name),
    );
  }
});
