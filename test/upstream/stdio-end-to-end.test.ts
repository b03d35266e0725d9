import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { trickyBody } from '../delegation/delegation-env.js';
import { filesystemServerBin, hasFilesystemServer, recordingEntry, spillwayBin, waitFor } from './upstream-fixtures.js';

// spillway served over stdio (`spillway serve --stdio`) to SDK clients, with two
// real upstream servers as child processes: the recording fixture and the
// published @modelcontextprotocol/server-filesystem.

type ElicitationMode = 'accept' | 'decline' | 'cancel' | 'reject' | 'ignore';

interface Session {
  client: Client;
  conversation: string;
  prompts: string[];
  mode: ElicitationMode;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

let dir = '';
let configFile = '';
let recordDir = '';
let sharedDir = '';
const sessions: Session[] = [];

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'spillway-e2e-'));
  recordDir = path.join(dir, 'received');
  sharedDir = path.join(dir, 'shared');
  await mkdir(sharedDir, { recursive: true });
  const upstreams: Record<string, unknown> = { rec: recordingEntry(recordDir, { timeoutMs: 4000 }) };
  if (hasFilesystemServer) upstreams.files = { command: filesystemServerBin, args: [sharedDir] };
  configFile = path.join(dir, 'spillway.json');
  await writeFile(
    configFile,
    JSON.stringify({
      sandbox: { root: path.join(dir, 'sandbox') },
      data: { dir: path.join(dir, 'data') },
      log: { level: 'warn' },
      upstreams,
      upstream: { reconnectMinMs: 100, reconnectMaxMs: 1000 },
      policy: { rules: { 'files__*': 'allow' }, approvalTimeoutMs: 1500 },
    }),
  );
});

after(async () => {
  await Promise.all(sessions.map((session) => session.client.close().catch(() => undefined)));
  await rm(dir, { recursive: true, force: true });
});

async function open(conversation: string, elicitation: boolean): Promise<Session> {
  const client = new Client({ name: `e2e-${conversation}`, version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {} });
  const session: Session = {
    client,
    conversation,
    prompts: [],
    mode: 'accept',
    call: async (name, args) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult,
  };
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
      session.prompts.push(request.params.message);
      switch (session.mode) {
        case 'accept':
          return { action: 'accept', content: { approve: true } };
        case 'decline':
          return { action: 'decline' };
        case 'cancel':
          return { action: 'cancel' };
        case 'reject':
          throw new Error('this client refuses approval requests');
        case 'ignore':
          return await new Promise<never>(() => undefined);
      }
    });
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [spillwayBin, 'serve', '--stdio', '--config', configFile, '--conversation', conversation],
    stderr: 'ignore',
  });
  await client.connect(transport);
  sessions.push(session);
  // Serving starts before the upstreams have connected; their tools appear (with tools/list_changed) when they have.
  const expected = hasFilesystemServer ? ['rec__record', 'files__read_text_file'] : ['rec__record'];
  await waitFor(async () => {
    const names = new Set((await client.listTools()).tools.map((tool) => tool.name));
    return expected.every((name) => names.has(name));
  }, 'the upstream tools');
  return session;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

function spillOf(result: CallToolResult): { path: string; format: string; bytes: number } | undefined {
  return result._meta?.['spillway/spill'] as { path: string; format: string; bytes: number } | undefined;
}

async function bodiesReceived(): Promise<string[]> {
  return (await readdir(recordDir).catch(() => [] as string[])).filter((name) => name.endsWith('.body')).sort();
}

let approving: Session | undefined;
async function approvingSession(): Promise<Session> {
  approving ??= await open('e2e-approving', true);
  return approving;
}

test('tools of both upstreams are offered as NAME__tool with their input schemas', async () => {
  const session = await approvingSession();
  const { tools } = await session.client.listTools();
  const record = tools.find((tool) => tool.name === 'rec__record');
  assert.ok(record !== undefined);
  assert.deepEqual(record.inputSchema.required, ['title', 'body']);
  assert.ok(tools.some((tool) => tool.name === 'call_with_args_file'));
  assert.ok(tools.some((tool) => tool.name === 'list_upstreams'));
  if (hasFilesystemServer) assert.ok(tools.some((tool) => tool.name === 'files__read_text_file'));
});

test('call_with_args_file sends a 500 KB body byte for byte; the approval shows it by size and path; history keeps the short call, the record the expanded one', async () => {
  const session = await approvingSession();
  const body = trickyBody(500 * 1024);
  const argsDir = path.join(dir, 'sandbox', 'local', session.conversation, 'args');
  await mkdir(argsDir, { recursive: true });
  await writeFile(path.join(argsDir, 'issue.json'), JSON.stringify({ title: 'Crash in worker', body }));
  const before = await bodiesReceived();
  const short = { tool: 'rec__record', argsPath: 'args/issue.json', overrides: { labels: ['crash', 'p1'] } };
  const result = await session.call('call_with_args_file', short);
  assert.equal(result.isError, false, textOf(result));
  const added = (await bodiesReceived()).filter((name) => !before.includes(name));
  assert.equal(added.length, 1);
  const receivedBody = await readFile(path.join(recordDir, added[0] as string));
  assert.ok(receivedBody.equals(Buffer.from(body, 'utf8')), 'the upstream received exactly the bytes of the args file body');
  const receivedArgs = JSON.parse(await readFile(path.join(recordDir, (added[0] as string).replace('.body', '.json')), 'utf8'));
  assert.deepEqual(receivedArgs, { title: 'Crash in worker', body, labels: ['crash', 'p1'] });

  const prompt = session.prompts.at(-1) ?? '';
  assert.match(prompt, /Allow spillway to call rec__record\?/);
  assert.match(prompt, /Requested through call_with_args_file \(args file args\/issue\.json; overrides: labels\)/);
  assert.match(prompt, /characters from args\/issue\.json\]/);
  assert.ok(prompt.length < 3000, `the prompt is ${prompt.length} characters`);

  assert.ok(!textOf(result).includes('libpthread'), 'the result the model reads does not repeat the body');
  const recordsFile = path.join(dir, 'data', 'records.jsonl');
  const record = await waitFor(async () => {
    const lines = (await readFile(recordsFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return lines.find((line) => line.conversationId === session.conversation && line.tool === 'call_with_args_file' && line.outcome === 'ok');
  }, 'the execution record');
  assert.deepEqual(record.arguments, short);
  const executed = record.executed as { tool: string; argsPath: string; arguments: { $capped: boolean; bytes: number } };
  assert.equal(executed.tool, 'rec__record');
  assert.equal(executed.argsPath, 'args/issue.json');
  assert.equal(executed.arguments.$capped, true);
  assert.equal(executed.arguments.bytes, Buffer.byteLength(JSON.stringify(receivedArgs)));
});

test('the reference filesystem server reads a large file and the result spills as text, line for line', async (t) => {
  if (!hasFilesystemServer) {
    t.skip(`@modelcontextprotocol/server-filesystem is not installed (${filesystemServerBin})`);
    return;
  }
  const session = await approvingSession();
  const lines = Array.from({ length: 6000 }, (_, index) => `${String(index).padStart(5, '0')} libpthread.so.0 os_thr_id@entry=232155 worker ${index % 7}`);
  const text = `${lines.join('\n')}\n`;
  const file = path.join(sharedDir, 'worker.log');
  await writeFile(file, text);
  const prompts = session.prompts.length;
  const result = await session.call('files__read_text_file', { path: file });
  assert.equal(result.isError, false, textOf(result).slice(0, 500));
  assert.equal(session.prompts.length, prompts, 'policy.rules "files__*": "allow" needs no approval');
  const spill = spillOf(result);
  assert.ok(spill !== undefined, 'the result spilled');
  assert.equal(spill.format, 'text');
  const spilled = await readFile(path.join(dir, 'sandbox', 'local', session.conversation, spill.path), 'utf8');
  assert.equal(spilled, text);
  assert.ok(textOf(result).length < text.length, 'the model reads a prefix plus the path');
  assert.match(textOf(result), new RegExp(spill.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
});

test('an upstream isError result and an upstream timeout are spilled to errors/ with their full text', async () => {
  const session = await approvingSession();
  const failed = await session.call('rec__fail', {});
  assert.equal(failed.isError, true);
  const failedSpill = spillOf(failed);
  assert.ok(failedSpill !== undefined && failedSpill.path.startsWith('errors/'));
  assert.match(
    await readFile(path.join(dir, 'sandbox', 'local', session.conversation, failedSpill.path), 'utf8'),
    /ValueError: upstream exploded at the very end/,
  );
  const slow = await session.call('rec__slow', { ms: 30_000 });
  assert.equal(slow.isError, true);
  assert.match(textOf(slow), /did not answer slow within 4000 ms/);
  const slowSpill = spillOf(slow);
  assert.ok(slowSpill !== undefined && slowSpill.path.startsWith('errors/'), textOf(slow));
  assert.match(await readFile(path.join(dir, 'sandbox', 'local', session.conversation, slowSpill.path), 'utf8'), /last stderr of rec/);
});

test('a client that declines, cancels, rejects or ignores the approval request: the target never runs', async () => {
  const session = await approvingSession();
  const argsDir = path.join(dir, 'sandbox', 'local', session.conversation, 'args');
  await mkdir(argsDir, { recursive: true });
  await writeFile(path.join(argsDir, 'small.json'), JSON.stringify({ title: 'no', body: 'must not arrive' }));
  const expectations: [ElicitationMode, RegExp][] = [
    ['decline', /The user declined the call to rec__record; it was not run/],
    ['cancel', /dismissed the approval request for rec__record; it was not run/],
    ['reject', /client failed the approval request .*it was not run/],
    ['ignore', /did not answer the approval request within 1.5 s \(policy\.approvalTimeoutMs\); it was not run/],
  ];
  for (const [mode, message] of expectations) {
    session.mode = mode;
    const before = await bodiesReceived();
    const delegated = await session.call('call_with_args_file', { tool: 'rec__record', argsPath: 'args/small.json' });
    assert.equal(delegated.isError, true, mode);
    assert.match(textOf(delegated), message, mode);
    const direct = await session.call('rec__record', { title: 'no', body: 'must not arrive either' });
    assert.equal(direct.isError, true, mode);
    assert.deepEqual(await bodiesReceived(), before, `${mode}: nothing reached the upstream`);
  }
  session.mode = 'accept';
});

test('a client without elicitation support gets a refusal it can relay; allowed tools still work', async () => {
  const session = await open('e2e-no-elicitation', false);
  const before = await bodiesReceived();
  const refused = await session.call('rec__record', { title: 't', body: 'must not arrive' });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /needs the user's approval \(policy "ask"\), and this client cannot be asked.*It was not run/s);
  assert.deepEqual(await bodiesReceived(), before);
  const listed = await session.call('list_upstreams', {});
  assert.match(textOf(listed), /"name":"rec"/);
  assert.match(textOf(listed), /"state":"connected"/);
});

test("an upstream tools/list_changed reaches the MCP client as spillway's own tools/list_changed", async () => {
  const session = await approvingSession();
  let notified = 0;
  session.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notified += 1;
  });
  const added = await session.call('rec__add_tool', { name: 'late_tool' });
  assert.equal(added.isError, false, textOf(added));
  await waitFor(() => notified > 0, 'tools/list_changed at the client');
  const { tools } = await session.client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'rec__late_tool'));
});
