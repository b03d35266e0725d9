import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHttpFront, type HttpFront } from '../../src/mcp/http-server.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

/** Principals authenticated by static bearer tokens (server.auth bearer), each token from the environment. */
const principals = ['alice', 'bob', 'carol@example.com'] as const;
const tokenOf = (principal: string) => `token-of-${principal}`;

/**
 * A host served twice: with bearer tokens (each request's principal comes from its token, set
 * on req.auth by the HTTP front) and without auth (principal local), over one sandbox.
 */
async function serve(t: TestContext): Promise<{ env: TempHost; front: HttpFront; open: HttpFront }> {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const front = await startHttpFront(env.host, {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    auth: { mode: 'bearer', tokens: principals.map((principal, index) => ({ principal, secretEnv: `TOKEN_${index}` })) },
    env: Object.fromEntries(principals.map((principal, index) => [`TOKEN_${index}`, tokenOf(principal)])),
  });
  t.after(() => front.close());
  const open = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => open.close());
  return { env, front, open };
}

/** A new MCP session (a reconnect) as `principal` (its bearer token), naming `conversation` in the Mcp-Conversation-Id header when given. */
async function connect(t: TestContext, front: HttpFront, principal: string | undefined, conversation?: string): Promise<Client> {
  const headers: Record<string, string> = {};
  if (principal !== undefined) headers.authorization = `Bearer ${tokenOf(principal)}`;
  if (conversation !== undefined) headers['mcp-conversation-id'] = conversation;
  const client = new Client({ name: `test-${principal ?? 'anonymous'}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers } }));
  t.after(() => client.close());
  return client;
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const errorCode = (result: CallToolResult) => (result._meta?.['spillway/error'] as { code?: string } | undefined)?.code;

test('reconnecting with the Mcp-Conversation-Id header or _meta reaches the same files; another principal never does', async (t) => {
  const { env, front, open } = await serve(t);

  const first = await connect(t, front, 'alice', 'project-1');
  const written = (await first.callTool({ name: 'write_file', arguments: { path: 'args/note.json', content: '{"secret":"alice"}' } })) as CallToolResult;
  assert.equal(written.isError, false, textOf(written));
  const attached = (await first.callTool({ name: 'attach_file', arguments: { path: 'args/note.json' } })) as CallToolResult;
  assert.equal(attached.isError, false, textOf(attached));
  const link = attached.content.find((block) => block.type === 'resource_link') as { uri: string } | undefined;
  assert.ok(link);
  await first.close();
  const onDisk = env.host.sandbox.conversation('project-1', 'alice').dir;
  assert.equal(await readFile(path.join(onDisk, 'args', 'note.json'), 'utf8'), '{"secret":"alice"}');

  // A new session with the same header: same files, same resources.
  const again = await connect(t, front, 'alice', 'project-1');
  const read = (await again.callTool({ name: 'read_file', arguments: { path: 'args/note.json' } })) as CallToolResult;
  assert.equal(read.isError, false, textOf(read));
  assert.match(textOf(read), /"secret":"alice"/);
  assert.deepEqual(
    (await again.listResources()).resources.map((resource) => resource.uri),
    [link.uri],
  );
  assert.equal(((await again.readResource({ uri: link.uri })).contents[0] as { text?: string }).text, '{"secret":"alice"}');

  // A new session without the header names the conversation per request in _meta (it wins over the header).
  const viaMeta = await connect(t, front, 'alice', 'some-other-conversation');
  const metaRead = (await viaMeta.callTool({
    name: 'read_file',
    arguments: { path: 'args/note.json' },
    _meta: { 'spillway/conversation': 'project-1' },
  })) as CallToolResult;
  assert.equal(metaRead.isError, false, textOf(metaRead));
  const metaResources = await viaMeta.listResources({ _meta: { 'spillway/conversation': 'project-1' } });
  assert.deepEqual(
    metaResources.resources.map((resource) => resource.uri),
    [link.uri],
  );
  const headerOnly = (await viaMeta.callTool({ name: 'read_file', arguments: { path: 'args/note.json' } })) as CallToolResult;
  assert.equal(errorCode(headerOnly), 'PATH_NOT_FOUND', 'without _meta the header names another conversation');

  // Another principal, knowing the conversation's name, reaches nothing of it.
  const bob = await connect(t, front, 'bob', 'project-1');
  const bobRead = (await bob.callTool({ name: 'read_file', arguments: { path: 'args/note.json' } })) as CallToolResult;
  assert.equal(bobRead.isError, true);
  assert.equal(errorCode(bobRead), 'PATH_NOT_FOUND');
  const bobClimb = (await bob.callTool({ name: 'read_file', arguments: { path: '../../alice/project-1/args/note.json' } })) as CallToolResult;
  assert.equal(bobClimb.isError, true);
  assert.deepEqual((await bob.listResources()).resources, []);
  await assert.rejects(bob.readResource({ uri: link.uri }), /Resource not found/);
  const bobMeta = (await bob.callTool({
    name: 'read_file',
    arguments: { path: 'args/note.json' },
    _meta: { 'spillway/conversation': 'project-1' },
  })) as CallToolResult;
  assert.equal(errorCode(bobMeta), 'PATH_NOT_FOUND');

  // Without auth the principal is "local": another, separate folder.
  const anonymous = await connect(t, open, undefined, 'project-1');
  assert.equal(errorCode((await anonymous.callTool({ name: 'read_file', arguments: { path: 'args/note.json' } })) as CallToolResult), 'PATH_NOT_FOUND');
  assert.equal(env.host.sandbox.conversation('project-1').dir, path.join(env.sandboxRoot, 'local', 'project-1'));
});

test('a principal with "@" (accepted by auth) gets its folder; without a header or _meta a session is its own conversation, as before', async (t) => {
  const { env, front } = await serve(t);
  const client = await connect(t, front, 'carol@example.com');
  const written = (await client.callTool({ name: 'write_file', arguments: { path: 'args/a.json', content: '{}' } })) as CallToolResult;
  assert.equal(written.isError, false, textOf(written));
  assert.equal((await readdir(path.join(env.sandboxRoot, 'carol@example.com'))).length, 1, 'one folder, named after the session id');
  const other = await connect(t, front, 'carol@example.com');
  assert.equal(errorCode((await other.callTool({ name: 'read_file', arguments: { path: 'args/a.json' } })) as CallToolResult), 'PATH_NOT_FOUND');
});

test('an unusable conversation id (header or _meta) is refused with CONVERSATION_INVALID; nothing runs and nothing is created', async (t) => {
  const { env, front } = await serve(t);
  const badHeader = await connect(t, front, 'alice', '..');
  const refused = (await badHeader.callTool({ name: 'write_file', arguments: { path: 'args/a.json', content: '{}' } })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.equal(errorCode(refused), 'CONVERSATION_INVALID');
  await assert.rejects(badHeader.listResources(), /Resource not found/);

  const client = await connect(t, front, 'alice');
  const badMeta = (await client.callTool({
    name: 'write_file',
    arguments: { path: 'args/a.json', content: '{}' },
    _meta: { 'spillway/conversation': 42 },
  })) as CallToolResult;
  assert.equal(errorCode(badMeta), 'CONVERSATION_INVALID');

  assert.deepEqual(
    (await readdir(env.sandboxRoot)).filter((name) => !name.startsWith('.')),
    [],
  );
});

test('a new file in a conversation is announced (resources/list_changed) to the other sessions of that principal working in it', async (t) => {
  const { front } = await serve(t);
  const watcher = await connect(t, front, 'alice', 'shared');
  // The session works in the conversation once, so the server knows it is interested.
  await watcher.listResources();
  const changed = new Promise<void>((resolve) => watcher.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
  const writer = await connect(t, front, 'alice', 'shared');
  await writer.callTool({ name: 'write_file', arguments: { path: 'args/a.json', content: '{}' } });
  const attached = (await writer.callTool({ name: 'attach_file', arguments: { path: 'args/a.json' } })) as CallToolResult;
  assert.equal(attached.isError, false, textOf(attached));
  await changed;
  assert.equal((await watcher.listResources()).resources.length, 1);
});
