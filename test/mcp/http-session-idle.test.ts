import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';

// The idle check reads an injected clock that only the test moves, so a slow machine cannot
// expire a session between two requests (it once did, between initialize and initialized).
function manualClock(): { now: () => number; advance(ms: number): void } {
  let time = Date.parse('2026-01-01T00:00:00Z');
  return { now: () => time, advance: (ms) => (time += ms) };
}

test('an HTTP session whose client vanished is closed once idle; its next request is told to start a new session', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const clock = manualClock();
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', sessionIdleMs: 60_000, now: clock.now });
  t.after(() => front.close());

  const client = new Client({ name: 'idle-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(front.url));
  await client.connect(transport);
  assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'read_file'));
  assert.equal(front.sessionCount(), 1);
  const sessionId = transport.sessionId ?? '';
  // The client vanishes: its connections drop (no DELETE), as when a process is killed.
  await transport.close();
  assert.equal(front.closeIdleSessions(), 0, 'not idle yet');
  // The server learns of the dropped connections when their sockets close; until then the
  // session is busy, and a close resets its last-seen time. So: move the clock past the limit
  // and check again until those events have arrived (a bound only turns a hang into a failure).
  for (let turn = 0; front.closeIdleSessions() === 0; turn += 1) {
    assert.ok(turn < 2_000, 'the session was never closed as idle');
    clock.advance(60_000);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
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
  const clock = manualClock();
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', sessionIdleMs: 60_000, now: clock.now });
  t.after(() => front.close());
  const client = new Client({ name: 'busy-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => client.close());
  for (let i = 0; i < 8; i += 1) {
    await client.listTools();
    clock.advance(50_000);
    front.closeIdleSessions();
  }
  // 400 s of clock time have passed, but never 60 s without a request.
  assert.equal(front.sessionCount(), 1);
});
