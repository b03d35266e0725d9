import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { writeOutputRecord } from '../../src/downloads/output-record.js';
import { signDownloadLink, verifyDownloadLink } from '../../src/downloads/signed-link.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { aliceToken, bearerAuth, bobToken, bytesOf, downloadFixture, exportBytes, fileUrl } from './helpers.js';

const conversation = 'links';
const key = randomBytes(32);
const claims = { principal: 'alice', conversationId: 'c1', path: 'outputs/a.csv', sha256: 'ab'.repeat(32) };

test('a link verifies with its key until it expires (injected clock), then is refused as expired', async () => {
  const made = new Date('2026-03-01T10:00:00Z');
  const { token, expiresAt } = await signDownloadLink(claims, { key, ttlSeconds: 3600, now: made });
  assert.equal(expiresAt.toISOString(), '2026-03-01T11:00:00.000Z');
  const fresh = await verifyDownloadLink(token, { key, now: new Date('2026-03-01T10:59:59Z') });
  assert.deepEqual(fresh, { ok: true, claims, expiresAt });
  assert.deepEqual(await verifyDownloadLink(token, { key, now: new Date('2026-03-01T11:00:00Z') }), { ok: false, reason: 'expired' });
});

test('a tampered link, another key, another audience and alg "none" are refused as invalid', async () => {
  const now = new Date('2026-03-01T10:00:00Z');
  const { token } = await signDownloadLink(claims, { key, ttlSeconds: 3600, now });
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), sub: 'bob' })).toString('base64url');
  const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
  const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
  const foreign = await new SignJWT({ cnv: 'c1', pth: 'outputs/a.csv', dig: claims.sha256 })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setAudience('something-else')
    .setExpirationTime(Math.floor(now.getTime() / 1000) + 60)
    .sign(key);
  for (const bad of [`${header}.${changed}.${signature}`, `${header}.${payload}.${flipped}`, unsigned, foreign, 'not-a-token', '']) {
    assert.deepEqual(await verifyDownloadLink(bad, { key, now }), { ok: false, reason: 'invalid' }, bad);
  }
  assert.deepEqual(await verifyDownloadLink(token, { key: randomBytes(32), now }), { ok: false, reason: 'invalid' });
});

test('a signed link on the download card works without a header; the resource_link _meta carries it too', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const bytes = randomBytes(5000);
  const { card, result } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'report.bin', bytes });
  assert.ok(card.downloadUrl?.startsWith(`${fixture.base}/files/${conversation}/outputs/report.bin?sig=`), card.downloadUrl);
  assert.ok(card.downloadExpiresAt !== undefined && Date.parse(card.downloadExpiresAt) > Date.now());
  const link = result.content.find((block) => block.type === 'resource_link');
  assert.deepEqual(link?._meta, { downloadUrl: card.downloadUrl, downloadExpiresAt: card.downloadExpiresAt });

  const response = await fetch(card.downloadUrl ?? '');
  assert.equal(response.status, 200);
  assert.deepEqual(await bytesOf(response), bytes);
  assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="report.bin"/);
});

test('without server.publicUrl the card has no downloadUrl, and the header route still works', async (t) => {
  const fixture = await downloadFixture(t, { publicUrl: false });
  const alice = await fixture.client(aliceToken);
  const { card, result } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'plain.bin', bytes: Buffer.from('x') });
  assert.equal(card.downloadUrl, undefined);
  assert.equal(result.content.find((block) => block.type === 'resource_link')?._meta, undefined);
  const response = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(await response.text(), 'x');
});

test('an expired link (the front checks by an injected clock) and a tampered one get 403; a link moved to another file gets 403', async (t) => {
  let nowMs = Date.now();
  const fixture = await downloadFixture(t, { front: { authNow: () => new Date(nowMs) } });
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'exp.bin', bytes: randomBytes(64) });
  const { card: other } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'other.bin', bytes: randomBytes(64) });
  const url = card.downloadUrl ?? '';
  assert.equal((await fetch(url)).status, 200);

  const token = new URL(url).searchParams.get('sig') ?? '';
  const tampered = url.replace(token, `${token.slice(0, -3)}${token.endsWith('abc') ? 'xyz' : 'abc'}`);
  const refusedTampered = await fetch(tampered);
  assert.equal(refusedTampered.status, 403);
  assert.deepEqual(await refusedTampered.json(), { error: 'This download link is not valid.' });
  const moved = `${fileUrl(fixture.base, conversation, other.path)}?sig=${token}`;
  assert.equal((await fetch(moved)).status, 403, "a link is bound to its own file's path");

  nowMs += 3601_000;
  const expired = await fetch(url);
  assert.equal(expired.status, 403);
  assert.deepEqual(await expired.json(), { error: 'This download link has expired; ask for a new one.' });
  assert.equal((await fetch(url, { headers: { authorization: `Bearer ${aliceToken}` } })).status, 403, 'a link decides even when a token is sent');
  assert.equal((await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } })).status, 200);
});

test("a second principal's token and links reach only that principal's own files: 404 for alice's", async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const bob = await fixture.client(bobToken);
  const { card: alices } = await exportBytes(fixture, alice, {
    principal: 'alice',
    conversationId: conversation,
    name: 'mine.bin',
    bytes: Buffer.from('alice'),
  });
  const asBob = { authorization: `Bearer ${bobToken}` };
  assert.equal((await fetch(fileUrl(fixture.base, conversation, alices.path), { headers: asBob })).status, 404);
  const { card: bobs } = await exportBytes(fixture, bob, { principal: 'bob', conversationId: 'elsewhere', name: 'mine.bin', bytes: Buffer.from('bob') });
  assert.equal(await (await fetch(bobs.downloadUrl ?? '')).text(), 'bob');
  // Bob's link moved onto alice's conversation and path is refused; his token there still finds nothing.
  const bobsSig = new URL(bobs.downloadUrl ?? '').searchParams.get('sig') ?? '';
  assert.equal((await fetch(`${fileUrl(fixture.base, conversation, alices.path)}?sig=${bobsSig}`)).status, 403);
  // A conversation of bob's with the same name holds bob's file, never alice's.
  await exportBytes(fixture, bob, { principal: 'bob', conversationId: conversation, name: 'mine.bin', bytes: Buffer.from('bob again') });
  assert.equal(await (await fetch(fileUrl(fixture.base, conversation, alices.path), { headers: asBob })).text(), 'bob again');
  assert.equal(await (await fetch(alices.downloadUrl ?? '')).text(), 'alice');
});

test('a link whose file changed since it was made gets 410; the card of the new export works', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'v.bin', bytes: Buffer.from('version 1') });
  const oldLink = card.downloadUrl ?? '';
  // run_script may write outputs/ directly; here the host re-records a new version under the same name, as such a call would.
  const sandbox = fixture.host.sandbox.conversation(conversation, 'alice');
  await sandbox.writeFile(card.path, 'version 2', { folders: ['outputs'], overwrite: true });
  const info = await stat(`${sandbox.dir}/${card.path}`);
  await writeOutputRecord(sandbox, {
    path: card.path,
    tool: 'run_script',
    sha256: createHash('sha256').update('version 2').digest('hex'),
    bytes: info.size,
    mtimeMs: info.mtimeMs,
    recordedAt: new Date().toISOString(),
  });
  const gone = await fetch(oldLink);
  assert.equal(gone.status, 410);
  assert.match(((await gone.json()) as { error: string }).error, /changed since this link was made/);
  const current = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(await current.text(), 'version 2');
});

test('fleet: another replica over the same sandbox volume and key serves the file, by link and by token', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const bytes = randomBytes(3000);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'shared.bin', bytes });
  // A second replica: its own process state, the same sandbox root and configuration (key file).
  const replica = await tempHost({
    sandbox: { root: fixture.config.sandbox.root },
    server: { auth: bearerAuth, downloads: { signingKeyFile: fixture.keyFile } },
  });
  t.after(() => replica.cleanup());
  const front = await startHttpFront(replica.host, { host: '127.0.0.1', port: 0, path: '/mcp', auth: bearerAuth });
  t.after(() => front.close());
  const base = front.url.replace(/\/mcp$/, '');
  const signed = new URL(card.downloadUrl ?? '');
  assert.deepEqual(await bytesOf(await fetch(`${base}${signed.pathname}${signed.search}`)), bytes);
  assert.deepEqual(await bytesOf(await fetch(fileUrl(base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } })), bytes);
});
