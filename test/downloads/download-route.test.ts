import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { aliceToken, bobToken, bytesOf, downloadFixture, exportBytes, fileUrl } from './helpers.js';

const conversation = 'report-2026';

test('a real MCP client exports a file and downloads it with its bearer token, byte-identical, with type, disposition and validators', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const bytes = randomBytes(70_000);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'Quartalsbericht größe.bin', bytes });
  assert.equal(card.path, 'outputs/Quartalsbericht größe.bin');

  const response = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(response.status, 200);
  assert.deepEqual(await bytesOf(response), bytes);
  assert.equal(response.headers.get('content-type'), 'application/octet-stream');
  assert.equal(response.headers.get('content-length'), String(bytes.length));
  assert.equal(
    response.headers.get('content-disposition'),
    `attachment; filename="Quartalsbericht gr__e.bin"; filename*=UTF-8''Quartalsbericht%20gr%C3%B6%C3%9Fe.bin`,
  );
  assert.match(response.headers.get('etag') ?? '', /^"[0-9a-f]{64}"$/);
  assert.ok(response.headers.get('last-modified'));
  assert.equal(response.headers.get('accept-ranges'), 'bytes');
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');

  const head = await fetch(fileUrl(fixture.base, conversation, card.path), { method: 'HEAD', headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(bytes.length));
  assert.equal((await head.arrayBuffer()).byteLength, 0);
});

test('a text output is served with its type and charset by extension', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, {
    principal: 'alice',
    conversationId: conversation,
    name: 'rows.csv',
    bytes: Buffer.from('id,name\n1,Ünal\n'),
  });
  const response = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.equal(await response.text(), 'id,name\n1,Ünal\n');
});

test('without a token the route answers 401 with the same challenge as /mcp; a wrong token too', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'a.bin', bytes: randomBytes(10) });
  const none = await fetch(fileUrl(fixture.base, conversation, card.path));
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="spillway"');
  const wrong = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get('www-authenticate') ?? '', /invalid_token/);
});

test("another principal's file, a missing file, a symlink, a path outside outputs/ and an unrecorded file all answer the same 404", async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const secret = randomBytes(500);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'secret.bin', bytes: secret });
  const dir = fixture.host.sandbox.conversation(conversation, 'alice').dir;
  // A symlink inside outputs/ to a file that stays inside the conversation, one that leads out, and a file no call recorded.
  await symlink(path.join(dir, 'args', 'secret.bin'), path.join(dir, 'outputs', 'inside-link.bin'));
  await symlink('/etc/passwd', path.join(dir, 'outputs', 'passwd'));
  await mkdir(path.join(dir, 'outputs', 'sub'));
  await writeFile(path.join(dir, 'outputs', 'sub', 'dropped.txt'), 'placed by hand');
  await symlink(path.join(dir, 'outputs'), path.join(dir, 'outputs', 'loop'));
  // A recorded output replaced by a symlink to a file of the same bytes: the record matches, the symlink does not.
  const { card: replaced } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'same.bin', bytes: secret });
  await rm(path.join(dir, replaced.path));
  await symlink(path.join(dir, 'args', 'same.bin'), path.join(dir, replaced.path));

  const asBob = { authorization: `Bearer ${bobToken}` };
  const asAlice = { authorization: `Bearer ${aliceToken}` };
  const tries: [string, Record<string, string>][] = [
    [fileUrl(fixture.base, conversation, card.path), asBob],
    [fileUrl(fixture.base, conversation, 'outputs/missing.bin'), asAlice],
    [fileUrl(fixture.base, 'no-such-conversation', card.path), asAlice],
    [fileUrl(fixture.base, conversation, 'outputs/inside-link.bin'), asAlice],
    [fileUrl(fixture.base, conversation, replaced.path), asAlice],
    [fileUrl(fixture.base, conversation, 'outputs/passwd'), asAlice],
    [fileUrl(fixture.base, conversation, 'outputs/loop/secret.bin'), asAlice],
    [fileUrl(fixture.base, conversation, 'outputs/sub/dropped.txt'), asAlice],
    [fileUrl(fixture.base, conversation, 'args/secret.bin'), asAlice],
    [`${fixture.base}/files/${conversation}/outputs/..%2Fargs%2Fsecret.bin`, asAlice],
    [`${fixture.base}/files/${conversation}/outputs/%2e%2e/args/secret.bin`, asAlice],
    [`${fixture.base}/files/${conversation}/outputs/%00.bin`, asAlice],
    [`${fixture.base}/files/${conversation}/outputs/%E0%A4%A`, asAlice],
    [`${fixture.base}/files/..%2F..%2Fbob/outputs/x`, asAlice],
    [`${fixture.base}/files/${conversation}`, asAlice],
    [`${fixture.base}/files/`, asAlice],
    [fileUrl(fixture.base, conversation, 'outputs'), asAlice],
  ];
  const bodies = new Set<string>();
  for (const [url, headers] of tries) {
    const response = await fetch(url, { headers });
    assert.equal(response.status, 404, url);
    bodies.add(`${response.headers.get('content-type')} ${await response.text()}`);
  }
  assert.deepEqual([...bodies], ['application/json {"error":"Not found."}']);
  const made = await readdir(path.join(fixture.sandboxRoot, 'alice'));
  assert.deepEqual(made, [conversation], 'a 404 for a conversation that does not exist created no folder');

  const own = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: asAlice });
  assert.deepEqual(await bytesOf(own), secret);
});

test('a file changed on disk after its export is no longer what the tool produced: 404', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'x.bin', bytes: Buffer.from('original') });
  const file = path.join(fixture.host.sandbox.conversation(conversation, 'alice').dir, card.path);
  await writeFile(file, 'tampered');
  await utimes(file, new Date(0), new Date(0));
  const response = await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } });
  assert.equal(response.status, 404);
});

test('If-None-Match with the ETag answers 304 without a body; another tag gets the file; If-Modified-Since works too', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'etag.bin', bytes: randomBytes(2048) });
  const url = fileUrl(fixture.base, conversation, card.path);
  const auth = { authorization: `Bearer ${aliceToken}` };
  const first = await fetch(url, { headers: auth });
  const etag = first.headers.get('etag') ?? '';
  const lastModified = first.headers.get('last-modified') ?? '';
  await first.arrayBuffer();

  const again = await fetch(url, { headers: { ...auth, 'if-none-match': `"other", ${etag}` } });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get('etag'), etag);
  assert.equal((await again.arrayBuffer()).byteLength, 0);
  const weak = await fetch(url, { headers: { ...auth, 'if-none-match': `W/${etag}` } });
  assert.equal(weak.status, 304);
  const other = await fetch(url, { headers: { ...auth, 'if-none-match': '"something-else"' } });
  assert.equal(other.status, 200);
  assert.equal((await other.arrayBuffer()).byteLength, 2048);
  const since = await fetch(url, { headers: { ...auth, 'if-modified-since': lastModified } });
  assert.equal(since.status, 304);
});

test('a policy change between export and download turns the download into 404 (logged); allowing it again serves it', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const fixture = await downloadFixture(t, { logger: pino({ level: 'info' }, sink) });
  const alice = await fixture.client(aliceToken);
  const { card } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'p.bin', bytes: randomBytes(100) });
  const url = fileUrl(fixture.base, conversation, card.path);
  const auth = { authorization: `Bearer ${aliceToken}` };
  assert.equal((await fetch(url, { headers: auth })).status, 200);
  const signed = card.downloadUrl ?? '';
  assert.equal((await fetch(signed)).status, 200);

  const config = fixture.host.config;
  fixture.host.updateConfig({ ...config, policy: { ...config.policy, rules: { ...config.policy.rules, attach_file: 'deny' } } });
  const denied = await fetch(url, { headers: auth });
  assert.equal(denied.status, 404);
  assert.equal(await denied.text(), '{"error":"Not found."}');
  assert.equal((await fetch(signed)).status, 404, 'the signed link too');
  assert.ok(
    lines.some((line) => line.includes('no longer allows the tool') && line.includes('"tool":"attach_file"') && line.includes('PERMISSION_DENIED')),
    'the refusal is logged with the tool',
  );

  fixture.host.updateConfig({ ...config, policy: { ...config.policy, rules: { ...config.policy.rules, 'attach_*': 'ask' } } });
  assert.equal((await fetch(url, { headers: auth })).status, 200, '"ask": the call that made the file was approved');
});

test('a delegating call records both tools: denying the delegating tool also refuses the download', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const sandbox = fixture.host.sandbox.conversation(conversation, 'alice');
  await sandbox.writeFile('args/data.txt', 'delegated bytes', { folders: ['args'] });
  await sandbox.writeFile('args/call.json', JSON.stringify({ path: 'args/data.txt' }), { folders: ['args'] });
  const result = (await alice.callTool({
    name: 'call_with_args_file',
    arguments: { tool: 'attach_file', argsPath: 'args/call.json' },
    _meta: { 'spillway/conversation': conversation },
  })) as CallToolResult;
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const link = result.content.find((block) => block.type === 'resource_link');
  assert.ok(link?.type === 'resource_link');
  const downloadUrl = (link._meta as { downloadUrl?: string } | undefined)?.downloadUrl ?? '';
  assert.equal(await (await fetch(downloadUrl)).text(), 'delegated bytes');
  const config = fixture.host.config;
  fixture.host.updateConfig({ ...config, policy: { ...config.policy, rules: { call_with_args_file: 'deny' } } });
  assert.equal((await fetch(downloadUrl)).status, 404);
});

test('an output that cannot be recorded keeps its card without a link and is not served over HTTP (fail closed); the call still succeeds', async (t) => {
  const fixture = await downloadFixture(t);
  const alice = await fixture.client(aliceToken);
  const sandbox = fixture.host.sandbox.conversation(conversation, 'alice');
  await sandbox.ensure();
  // A file where the records folder belongs: every record write fails.
  await writeFile(path.join(sandbox.dir, '.output-records'), 'in the way');
  const { card, result } = await exportBytes(fixture, alice, { principal: 'alice', conversationId: conversation, name: 'r.bin', bytes: Buffer.from('r') });
  assert.notEqual(result.isError, true);
  assert.equal(card.downloadUrl, undefined);
  assert.equal((await fetch(fileUrl(fixture.base, conversation, card.path), { headers: { authorization: `Bearer ${aliceToken}` } })).status, 404);
});
