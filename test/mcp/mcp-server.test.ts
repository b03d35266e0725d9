import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

async function connect(t: import('node:test').TestContext, overrides: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) {
  const env = await tempHost(overrides);
  t.after(() => env.cleanup());
  const rows = makeRows(321);
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const server = createMcpServer(env.host, { conversationId: 'mcp-1' });
  const client = new Client({ name: 'test', version: '1' }, { capabilities });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(() => client.close());
  return { env, client, rows };
}

test('tools are listed with their schemas; a spilled result carries _meta["spillway/spill"]', async (t) => {
  const { client, rows, env } = await connect(t);
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ['list_files', 'read_file', 'rows', 'search_file']) assert.ok(names.includes(name), name);
  assert.equal(names.length, env.host.listTools().length);
  assert.equal(tools.find((tool) => tool.name === 'read_file')?.inputSchema.type, 'object');
  const result = (await client.callTool({ name: 'rows', arguments: {} })) as CallToolResult;
  assert.equal(result.isError, false);
  const meta = result._meta?.['spillway/spill'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(meta).sort(), ['bytes', 'columns', 'expiresAt', 'format', 'path', 'rows']);
  assert.equal(meta.path, 'results/0001-rows.jsonl');
  assert.equal(meta.rows, 321);
  assert.equal(meta.format, 'jsonl');
  const text = (result.content[0] as { text: string }).text;
  assert.deepEqual(JSON.parse(text.slice(0, text.indexOf('\n\n[spillway]'))), rows);
});

test('an error result is isError with a coded message and no spill meta', async (t) => {
  const { client } = await connect(t);
  const result = (await client.callTool({ name: 'read_file', arguments: { path: '../x' } })) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match((result.content[0] as { text: string }).text, /contains "\.\."/);
  assert.equal(result._meta?.['spillway/spill'], undefined);
});

test('outputs/ files are resources of the session; other paths are refused', async (t) => {
  const { client, env } = await connect(t);
  const sandbox = env.host.sandbox.conversation('mcp-1');
  await sandbox.ensure();
  await writeFile(path.join(sandbox.dir, 'outputs', 'report.csv'), 'a,b\n1,2\n');
  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((resource) => resource.uri),
    ['spillway://sandbox/outputs/report.csv'],
  );
  const read = await client.readResource({ uri: 'spillway://sandbox/outputs/report.csv' });
  assert.equal((read.contents[0] as { text: string }).text, 'a,b\n1,2\n');
  await assert.rejects(client.readResource({ uri: 'spillway://sandbox/results/0001-rows.jsonl' }), /not allowed here/);
  await assert.rejects(client.readResource({ uri: 'spillway://sandbox/outputs/..%2F..%2Fx' }), /\.\./);
});

test('registering a tool notifies the client (tools/list_changed)', async (t) => {
  const { client, env } = await connect(t);
  const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  env.host.registerTool({ name: 'late', description: 'x', inputSchema: { type: 'object' }, handler: () => ({ value: 'ok' }) });
  await changed;
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'late'));
});

test('a tool the policy marks "ask" is approved or declined through elicitation', async (t) => {
  const { client } = await connect(t, { policy: { default: 'allow', upstreamDefault: 'ask', rules: { rows: 'ask' } } }, { elicitation: {} });
  let answer = true;
  let asked = '';
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked = request.params.message;
    return { action: 'accept', content: { approve: answer } };
  });
  const approved = (await client.callTool({ name: 'rows', arguments: { q: 1 } })) as CallToolResult;
  assert.equal(approved.isError, false);
  assert.match(asked, /rows/);
  answer = false;
  const declined = (await client.callTool({ name: 'rows', arguments: {} })) as CallToolResult;
  assert.equal(declined.isError, true);
  assert.match((declined.content[0] as { text: string }).text, /it was not run/);
});

test('without elicitation support an "ask" tool is refused with APPROVAL_UNAVAILABLE', async (t) => {
  const { client } = await connect(t, { policy: { default: 'allow', upstreamDefault: 'ask', rules: { rows: 'ask' } } });
  const result = (await client.callTool({ name: 'rows', arguments: {} })) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match((result.content[0] as { text: string }).text, /needs the user's approval/);
});
