import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { startHttpFront, type HttpFront } from '../../src/mcp/http-server.js';
import { maxSubscriptionsPerSession } from '../../src/mcp/resource-subscriptions.js';
import { startRetention } from '../../src/retention/start-retention.js';
import { makeRows, tempHost, type TempHost } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * MCP logging, prompts, completion and resource subscriptions, each through a
 * real SDK client over Streamable HTTP against a real host.
 */

interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
  conversation: string;
  logs: LoggingMessageNotification['params'][];
  updated: string[];
  /** Resolves with the next notifications/resources/updated URI. */
  nextUpdate(): Promise<string>;
}

async function setUp(t: TestContext): Promise<{ env: TempHost; front: HttpFront; open(): Promise<Session> }> {
  // A small inline budget, so a 321-row result is cut in the text the model reads; one tool the policy denies.
  const env = await tempHost({ inline: { maxTokens: 500 }, policy: { rules: { forbidden: 'deny' } } });
  t.after(() => env.cleanup());
  const rows = makeRows(321);
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  env.host.registerTool({
    name: 'chatty',
    description: 'tells its caller how far it got',
    inputSchema: { type: 'object' },
    handler: (_args, context) => {
      context.notify('notice', 'halfway there', { step: 1 });
      return { value: 'done' };
    },
  });
  env.host.registerTool({
    name: 'broken',
    description: 'always fails',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('the disk is on fire');
    },
  });
  env.host.registerTool({
    name: 'forbidden',
    description: 'denied by policy, never runs',
    inputSchema: { type: 'object' },
    handler: () => assert.fail('a denied tool ran'),
  });
  env.host.registerTool({
    name: 'leaky',
    description: 'returns a row holding an AWS-access-key-shaped secret',
    inputSchema: { type: 'object' },
    handler: () => ({ value: [{ id: 1, note: `deploy key ${awsKey}` }] }),
  });
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const open = async (): Promise<Session> => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(front.url));
    const logs: Session['logs'] = [];
    const updated: string[] = [];
    const waiting: ((uri: string) => void)[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
      waiting.shift()?.(notification.params.uri);
    });
    await client.connect(transport);
    t.after(() => client.close());
    return {
      client,
      transport,
      conversation: transport.sessionId as string,
      logs,
      updated,
      nextUpdate: () => new Promise((resolve) => waiting.push(resolve)),
    };
  };
  return { env, front, open };
}

/** AWS's documented example access key id: the shape screening's aws-access-key rule finds. */
const awsKey = 'AKIAIOSFODNN7EXAMPLE';

const spillPath = (result: CallToolResult) => (result._meta?.['spillway/spill'] as { path: string }).path;

async function rejects(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpError, `an McpError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to be refused');
}

test('logging: a session hears about its own calls at the level it set; the default is warnings and errors only', async (t) => {
  const { open } = await setUp(t);
  const alice = await open();
  const bob = await open();

  // Before any setLevel: a spill (info) is not sent, a failure (error) is.
  await alice.client.callTool({ name: 'rows', arguments: {} });
  assert.equal(alice.logs.length, 0);
  const failed = (await alice.client.callTool({ name: 'broken', arguments: {} })) as CallToolResult;
  assert.equal(failed.isError, true);
  assert.equal(alice.logs.length, 1);
  assert.equal(alice.logs[0]?.level, 'error');
  assert.equal(alice.logs[0]?.logger, 'spillway');
  const errorData = alice.logs[0]?.data as { message: string; code: string };
  assert.equal(errorData.code, 'TOOL_FAILED');
  assert.match(errorData.message, /broken failed \(TOOL_FAILED\)/);

  await alice.client.setLoggingLevel('debug');
  alice.logs.length = 0;
  const spilled = (await alice.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult;
  const path = spillPath(spilled);
  const levels = alice.logs.map((entry) => entry.level);
  assert.deepEqual(levels.slice(0, 1), ['debug'], 'a "started" entry comes first');
  const written = alice.logs.find((entry) => entry.level === 'info');
  assert.ok(written !== undefined, 'the spill is told at info');
  const writtenData = written.data as { message: string; path: string; rows: number };
  assert.equal(writtenData.path, path);
  assert.equal(writtenData.rows, 321);
  assert.match(writtenData.message, /321 rows × 5 columns/);
  // The model-facing text was cut: a notice says where all of it is.
  assert.ok(alice.logs.some((entry) => entry.level === 'notice' && (entry.data as { path?: string }).path === path));

  // A tool's own context.notify reaches the caller at its level.
  alice.logs.length = 0;
  await alice.client.setLoggingLevel('notice');
  await alice.client.callTool({ name: 'chatty', arguments: {} });
  assert.deepEqual(
    alice.logs.map((entry) => [entry.level, (entry.data as { message: string }).message]),
    [['notice', 'chatty: halfway there']],
  );

  // Bob asked for everything but made no call: nothing of Alice's calls reached him.
  await bob.client.setLoggingLevel('debug');
  await alice.client.callTool({ name: 'rows', arguments: {} });
  await bob.client.callTool({ name: 'chatty', arguments: {} });
  const bobMessages = bob.logs.map((entry) => (entry.data as { message: string }).message);
  assert.ok(bobMessages.length > 0);
  assert.ok(
    bobMessages.every((message) => message.startsWith('chatty')),
    bobMessages.join('; '),
  );
});

test('logging: a policy refusal reaches the session as an error with its code, a screening finding as a warning (default level)', async (t) => {
  const { open } = await setUp(t);
  const session = await open();

  const refused = (await session.client.callTool({ name: 'forbidden', arguments: {} })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.equal((refused._meta?.['spillway/error'] as { code: string } | undefined)?.code, 'PERMISSION_DENIED');
  assert.deepEqual(
    session.logs.map((entry) => [entry.level, entry.logger, (entry.data as { code?: string }).code]),
    [['error', 'spillway', 'PERMISSION_DENIED']],
  );
  assert.match((session.logs[0]?.data as { message: string }).message, /forbidden failed \(PERMISSION_DENIED\): .*denied by this host's policy/);

  session.logs.length = 0;
  const screened = (await session.client.callTool({ name: 'leaky', arguments: {} })) as CallToolResult;
  assert.equal(screened.isError, false);
  assert.ok(!JSON.stringify(screened).includes(awsKey), 'the model never reads the key');
  assert.equal(session.logs.length, 1, JSON.stringify(session.logs));
  const warning = session.logs[0];
  assert.equal(warning?.level, 'warning');
  assert.equal(warning?.logger, 'spillway');
  const data = warning?.data as { message: string; secrets: number; secretAction: string; kinds: Record<string, number> };
  assert.equal(data.secrets, 1);
  assert.deepEqual(data.kinds, { 'aws-access-key': 1 });
  assert.equal(data.secretAction, 'redact');
  assert.match(data.message, /^leaky: 1 secret redacted$/);
  assert.ok(!JSON.stringify(session.logs).includes(awsKey), 'nor does the log message carry it');
});

test('prompts: listed with their arguments; export_result names the newest result and its shape; bad arguments are refused by name', async (t) => {
  const { open, env } = await setUp(t);
  const session = await open();
  const { prompts } = await session.client.listPrompts();
  assert.deepEqual(prompts.map((prompt) => prompt.name).sort(), ['export_result', 'report_on_result']);
  const exportPrompt = prompts.find((prompt) => prompt.name === 'export_result');
  assert.deepEqual(
    exportPrompt?.arguments?.map((argument) => [argument.name, argument.required]),
    [
      ['path', false],
      ['format', false],
    ],
  );

  // Nothing to export yet: the refusal says what to do.
  const empty = await rejects(session.client.getPrompt({ name: 'export_result', arguments: {} }));
  assert.equal((empty.data as { code: string }).code, 'PATH_NOT_FOUND');
  assert.match(empty.message, /run a query first/);

  const path = spillPath((await session.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult);
  const rendered = await session.client.getPrompt({ name: 'export_result', arguments: { format: 'csv' } });
  const text = (rendered.messages[0]?.content as { text: string }).text;
  assert.match(text, new RegExp(`source "${path.replace('.', '\\.')}", format "csv"`));
  assert.match(text, /321 rows; columns id, name, amount, active, note/);
  assert.match(text, /do not retype/);

  const report = await session.client.getPrompt({ name: 'report_on_result', arguments: { path, title: 'Q3 items' } });
  const reportText = (report.messages[0]?.content as { text: string }).text;
  assert.match(reportText, /build_document/);
  assert.match(reportText, /the title "Q3 items"/);

  const badFormat = await rejects(session.client.getPrompt({ name: 'export_result', arguments: { format: 'pdf' } }));
  assert.equal((badFormat.data as { code: string }).code, 'INVALID_ARGUMENTS');
  assert.match(badFormat.message, /csv, xlsx, parquet/);
  const traversal = await rejects(session.client.getPrompt({ name: 'export_result', arguments: { path: '../../other/results/x.jsonl' } }));
  assert.equal((traversal.data as { code: string }).code, 'PATH_TRAVERSAL');
  const unknownArgument = await rejects(session.client.getPrompt({ name: 'export_result', arguments: { colour: 'red' } }));
  assert.match(unknownArgument.message, /no argument "colour"/);
  const unknown = await rejects(session.client.getPrompt({ name: 'nope', arguments: {} }));
  assert.match(unknown.message, /prompts: export_result, report_on_result/);

  // An embedder's new prompt is announced to connected sessions.
  const changed = new Promise<void>((resolve) => session.client.setNotificationHandler(PromptListChangedNotificationSchema, () => resolve()));
  env.host.prompts.register({
    name: 'greet',
    description: 'says hello',
    arguments: [{ name: 'who', required: true }],
    render: (args) => [{ role: 'user', content: { type: 'text', text: `Hello ${args.who}` } }],
  });
  await changed;
  const greeting = await session.client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
  assert.equal((greeting.messages[0]?.content as { text: string }).text, 'Hello Ada');
  const missing = await rejects(session.client.getPrompt({ name: 'greet', arguments: {} }));
  assert.match(missing.message, /needs who/);
});

test("completion: path arguments complete to the conversation's own files, one folder at a time; the outputs template to its files", async (t) => {
  const { open } = await setUp(t);
  const session = await open();
  const other = await open();
  const path = spillPath((await session.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult);
  await session.client.callTool({ name: 'export_table', arguments: { source: path, format: 'csv', filename: 'items.csv' } });
  const complete = (client: Client, value: string, name = 'path') =>
    client.complete({ ref: { type: 'ref/prompt', name: 'export_result' }, argument: { name, value } }).then((answer) => answer.completion.values);

  assert.deepEqual(await complete(session.client, 'res'), ['results/']);
  assert.deepEqual(await complete(session.client, 'results/'), [path]);
  assert.deepEqual(await complete(session.client, 'outputs/it'), ['outputs/items.csv']);
  assert.deepEqual(await complete(session.client, 'z', 'format'), []);
  assert.deepEqual(await complete(session.client, 'X', 'format'), ['xlsx']);
  assert.deepEqual(await complete(session.client, '', 'format'), ['csv', 'xlsx', 'parquet']);
  // A hostile prefix and another conversation's view complete to nothing of this one.
  assert.deepEqual(await complete(session.client, '../'), []);
  assert.deepEqual(await complete(session.client, '/etc/pa'), []);
  assert.deepEqual(await complete(other.client, 'results/'), []);

  const { resourceTemplates } = await session.client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((template) => template.uriTemplate),
    ['spillway://sandbox/outputs/{name}'],
  );
  const names = await session.client.complete({
    ref: { type: 'ref/resource', uri: 'spillway://sandbox/outputs/{name}' },
    argument: { name: 'name', value: 'i' },
  });
  assert.deepEqual(names.completion.values, ['items.csv']);
});

test('subscriptions: an output written later and a spill removed by retention are announced to their subscriber only', async (t) => {
  const { open, env } = await setUp(t);
  const alice = await open();
  const bob = await open();
  const path = spillPath((await alice.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult);

  // Alice watches an export that does not exist yet and the spill; Bob watches the same names in his own conversation, and a file of his own.
  await alice.client.subscribeResource({ uri: 'spillway://sandbox/outputs/items.csv' });
  await alice.client.subscribeResource({ uri: `spillway://sandbox/${path}` });
  await bob.client.subscribeResource({ uri: 'spillway://sandbox/outputs/items.csv' });
  await bob.client.subscribeResource({ uri: `spillway://sandbox/${path}` });
  await bob.client.subscribeResource({ uri: 'spillway://sandbox/outputs/bob.csv' });

  const exported = alice.nextUpdate();
  await alice.client.callTool({ name: 'export_table', arguments: { source: path, format: 'csv', filename: 'items.csv' } });
  assert.equal(await exported, 'spillway://sandbox/outputs/items.csv');

  // Retention, eight days on, removes Alice's spill (never outputs/).
  const retention = startRetention(env.host, { now: () => new Date(Date.now() + 8 * 24 * 3600 * 1000) });
  t.after(() => retention.stop());
  const removed = alice.nextUpdate();
  const outcome = await retention.scheduler.runNow();
  assert.equal(outcome.outcome, 'ok');
  assert.equal(await removed, `spillway://sandbox/${path}`);

  // Bob's own files come after both events on the same stream: had either been sent to him, it would have arrived first.
  // His first spill takes the same name as Alice's: that write is his, and announced.
  const bobsSpill = bob.nextUpdate();
  const bobsExport = bob.nextUpdate();
  const bobPath = spillPath((await bob.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult);
  assert.equal(bobPath, path);
  await bob.client.callTool({ name: 'export_table', arguments: { source: bobPath, format: 'csv', filename: 'bob.csv' } });
  assert.equal(await bobsSpill, `spillway://sandbox/${path}`);
  assert.equal(await bobsExport, 'spillway://sandbox/outputs/bob.csv');
  assert.deepEqual(bob.updated, [`spillway://sandbox/${path}`, 'spillway://sandbox/outputs/bob.csv']);

  // After unsubscribing, a new write is not announced; a new subscription (bob.csv again) shows the stream still works.
  await alice.client.unsubscribeResource({ uri: 'spillway://sandbox/outputs/items.csv' });
  await alice.client.subscribeResource({ uri: 'spillway://sandbox/outputs/last.csv' });
  const last = alice.nextUpdate();
  const again = spillPath((await alice.client.callTool({ name: 'rows', arguments: {} })) as CallToolResult);
  await alice.client.callTool({ name: 'export_table', arguments: { source: again, format: 'csv', filename: 'items.csv' } });
  await alice.client.callTool({ name: 'export_table', arguments: { source: again, format: 'csv', filename: 'last.csv' } });
  assert.equal(await last, 'spillway://sandbox/outputs/last.csv');
  assert.equal(alice.updated.filter((uri) => uri.endsWith('items.csv')).length, 1);
});

test('subscriptions: a path the sandbox refuses is "resource not found"; a session may watch a bounded number of resources', async (t) => {
  const { open } = await setUp(t);
  const session = await open();
  for (const uri of ['spillway://sandbox/../x/outputs/a.csv', 'spillway://sandbox/outputs/%2e%2e/%2e%2e/etc', 'spillway://sandbox/logs/a']) {
    const refused = await rejects(session.client.subscribeResource({ uri }));
    assert.equal(refused.code, -32002, uri);
  }
  for (let index = 0; index < maxSubscriptionsPerSession; index += 1) {
    await session.client.subscribeResource({ uri: `spillway://sandbox/outputs/file-${index}.csv` });
  }
  // The same resource again is not a new one.
  await session.client.subscribeResource({ uri: 'spillway://sandbox/outputs/file-0.csv' });
  const full = await rejects(session.client.subscribeResource({ uri: 'spillway://sandbox/outputs/one-more.csv' }));
  assert.match(full.message, /unsubscribe from one first/);
  await session.client.unsubscribeResource({ uri: 'spillway://sandbox/outputs/file-0.csv' });
  await session.client.subscribeResource({ uri: 'spillway://sandbox/outputs/one-more.csv' });
});

test("an embedder's resources are listed, read and announced to subscribers when touched", async (t) => {
  const { open, env } = await setUp(t);
  let version = 1;
  env.host.resources.register({ uri: 'docs://handbook/exports', name: 'exports', mimeType: 'text/markdown', read: () => ({ text: `# Exports v${version}` }) });
  env.host.resources.register({ uri: 'docs://logo', name: 'logo', mimeType: 'image/png', read: () => ({ blob: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }) });
  assert.throws(() => env.host.resources.register({ uri: 'spillway://sandbox/outputs/x', name: 'x', mimeType: 'text/plain', read: () => ({ text: '' }) }), {
    code: 'CONFIG_INVALID',
  });
  const session = await open();
  const { resources } = await session.client.listResources();
  assert.deepEqual(
    resources.map((resource) => resource.uri),
    ['docs://handbook/exports', 'docs://logo'],
  );
  const text = await session.client.readResource({ uri: 'docs://handbook/exports' });
  assert.deepEqual(text.contents, [{ uri: 'docs://handbook/exports', mimeType: 'text/markdown', text: '# Exports v1' }]);
  const blob = await session.client.readResource({ uri: 'docs://logo' });
  assert.equal((blob.contents[0] as { blob: string }).blob, Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64'));

  await session.client.subscribeResource({ uri: 'docs://handbook/exports' });
  const updated = session.nextUpdate();
  version = 2;
  env.host.resources.touch('docs://handbook/exports');
  assert.equal(await updated, 'docs://handbook/exports');
  const reread = await session.client.readResource({ uri: 'docs://handbook/exports' });
  assert.equal((reread.contents[0] as { text: string }).text, '# Exports v2');
});

test('many sessions on one host: no listener-leak warning, and a closed session leaves no listener behind', async (t) => {
  const { open, env } = await setUp(t);
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const before = env.host.listenerCount('file-changed');
  const sessions = await Promise.all(Array.from({ length: 12 }, () => open()));
  assert.equal(env.host.listenerCount('file-changed'), before + 12);
  await Promise.all(sessions.map((session) => session.transport.terminateSession()));
  // The server closes each session its client deleted (DELETE /mcp); wait for the listeners to go.
  await waitFor(() => env.host.listenerCount('file-changed') === before, 'the closed sessions to stop listening');
  // A warning is emitted on the next tick after the listener that crossed the limit; one more round trip lets it land.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    warnings.filter((name) => name === 'MaxListenersExceededWarning'),
    [],
  );
});
