import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';

test('an HTTP session whose client vanished is closed once idle; its next request is told to start a new session', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', sessionIdleMs: 200 });
  t.after(() => front.close());

  const client = new Client({ name: 'idle-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(front.url));
  await client.connect(transport);
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'read_file'));
  assert.equal(front.sessionCount(), 1);
  const sessionId = transport.sessionId ?? '';
  // The client vanishes: its connections drop (no DELETE), as when a process is killed.
  await transport.close();

  for (let waited = 0; front.sessionCount() > 0 && waited < 10_000; waited += 100) await sleep(100);
  assert.equal(front.sessionCount(), 0, 'the idle session was closed');

  const response = await fetch(front.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
  });
  assert.equal(response.status, 404);
  assert.match(await response.text(), /start a new one with initialize/);
});

test('a session that keeps talking, or keeps its stream open, is not closed as idle', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', sessionIdleMs: 400 });
  t.after(() => front.close());
  const client = new Client({ name: 'busy-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => client.close());
  for (let i = 0; i < 8; i += 1) {
    await client.listTools();
    await sleep(100);
  }
  assert.equal(front.sessionCount(), 1);
});
