import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionAdmission } from '../../src/mcp/session-admission.js';

test('sessions being opened count against the caps until their opening ends', async () => {
  const open: { principal: string }[] = [];
  const admission = sessionAdmission({ maxSessions: 3, maxSessionsPerPrincipal: 2 }, () => open);
  let finish = () => undefined as void;
  const first = admission.opening('alice', () => new Promise<void>((resolve) => (finish = resolve)));
  open.push({ principal: 'alice' });
  assert.equal(admission.check('alice')?.details?.scope, 'principal', 'one open and one opening reach the per-principal cap');
  assert.deepEqual(admission.check('alice')?.details, { scope: 'principal', principal: 'alice', open: 2, limit: 2 });
  assert.equal(admission.check('bob'), undefined);
  open.push({ principal: 'bob' });
  assert.equal(admission.check('carol')?.details?.scope, 'server');
  assert.equal(admission.check('carol')?.code, 'SESSION_LIMIT');
  finish();
  await first;
  // The opening ended without a session (refused): only the two open ones count now.
  assert.equal(admission.check('carol'), undefined);
  assert.equal(admission.check('alice'), undefined);
});

test('a failed opening is not counted afterwards', async () => {
  const admission = sessionAdmission({ maxSessions: 1, maxSessionsPerPrincipal: 1 }, () => []);
  await assert.rejects(admission.opening('alice', () => Promise.reject(new Error('boom'))));
  assert.equal(admission.check('alice'), undefined);
});
