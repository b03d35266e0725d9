import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EventBudget, SessionEventStore } from '../../src/mcp/session-event-store.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { tempHost } from '../helpers/temp-host.js';

interface SseEvent {
  id?: string;
  retry?: string;
  data: string;
}

/** Reads SSE events from a response body one at a time. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(): Promise<SseEvent> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.split('\n').every((line) => line.startsWith(':'))) continue; // keep-alive comment
          const event: SseEvent = { data: '' };
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') event.id = value;
            else if (field === 'retry') event.retry = value;
            else if (field === 'data') event.data += value;
          }
          return event;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

const protocolVersion = '2025-11-25';
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const sessionId = response.headers.get('mcp-session-id') ?? '';
  await response.text();
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...jsonHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return sessionId;
}

test('SSE events carry ids and a retry; a client that reconnects with Last-Event-ID gets what it missed, then the rest live', async (t) => {
  const first = gate();
  const second = gate();
  const host = await tempHost();
  t.after(() => host.cleanup());
  host.host.registerTool({
    name: 'gated',
    description: 'test tool that waits for the test',
    inputSchema: { type: 'object' },
    async handler(_args, context) {
      context.progress({ progress: 1, message: 'one' });
      await first.wait;
      context.progress({ progress: 2, message: 'two' });
      await second.wait;
      return { value: 'done' };
    },
  });
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', sseRetryMs: 2500 });
  t.after(() => front.close());
  const sessionId = await openSession(front.url);
  const sessionHeaders = { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion };

  // The server side of the call's stream: resuming is only possible once the server has seen it close.
  const callClosed = new Promise<void>((resolve) => {
    front.server.once('request', (_request, response) => response.once('close', () => resolve()));
  });
  const call = await fetch(front.url, {
    method: 'POST',
    headers: { ...jsonHeaders, ...sessionHeaders },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'gated', arguments: {}, _meta: { progressToken: 'p1' } } }),
  });
  assert.equal(call.headers.get('content-type'), 'text/event-stream');
  const stream = sseReader(call.body as ReadableStream<Uint8Array>);
  const priming = await stream.next();
  assert.ok(priming.id !== undefined && priming.id !== '', 'the priming event has an id');
  assert.equal(priming.retry, '2500');
  const one = await stream.next();
  assert.ok(one.id !== undefined);
  assert.equal((JSON.parse(one.data) as { params: { progress: number } }).params.progress, 1);
  // The connection drops; meanwhile the call goes on.
  await stream.cancel();
  await callClosed;
  first.open();

  const resumed = await fetch(front.url, { headers: { accept: 'text/event-stream', ...sessionHeaders, 'last-event-id': one.id } });
  assert.equal(resumed.status, 200);
  const rest = sseReader(resumed.body as ReadableStream<Uint8Array>);
  const two = await rest.next();
  assert.ok(two.id !== undefined && two.id !== one.id);
  assert.deepEqual((JSON.parse(two.data) as { params: unknown }).params, { progressToken: 'p1', progress: 2, message: 'two' });
  second.open();
  const answer = await rest.next();
  const message = JSON.parse(answer.data) as { id: number; result: { content: { text: string }[] } };
  assert.equal(message.id, 7);
  assert.equal(message.result.content[0]?.text, 'done');
  await rest.cancel();

  // Another session's event id is unknown in this one: nothing of this session is replayed there.
  const other = await openSession(front.url);
  const foreign = await fetch(front.url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': other, 'mcp-protocol-version': protocolVersion, 'last-event-id': one.id },
  });
  assert.equal(foreign.status, 400);
  await foreign.text();
});

test('the MCP SDK client resumes a call whose connection dropped: it reconnects with Last-Event-ID and gets the progress it missed and the result, once each', async (t) => {
  const released = gate();
  const host = await tempHost();
  t.after(() => host.cleanup());
  host.host.registerTool({
    name: 'gated',
    description: 'test tool that waits for the test',
    inputSchema: { type: 'object' },
    async handler(_args, context) {
      context.progress({ progress: 1 });
      await released.wait;
      context.progress({ progress: 2 });
      return { value: 'done' };
    },
  });
  const front = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', sseRetryMs: 1 });
  t.after(() => front.close());
  let lastPost: IncomingMessage | undefined;
  front.server.on('request', (request: IncomingMessage) => {
    if (request.method === 'POST') lastPost = request;
  });
  const client = new Client({ name: 'resume-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => client.close());

  const progress: number[] = [];
  const tokens: string[] = [];
  const result = await client.callTool({ name: 'gated', arguments: {} }, undefined, {
    onprogress: (update) => {
      progress.push(update.progress);
      if (update.progress === 1) {
        // The call's connection drops (the server side of its socket is cut) while the tool goes on.
        lastPost?.socket.destroy();
        released.open();
      }
    },
    onresumptiontoken: (token) => void tokens.push(token),
  });
  assert.equal((result.content as { text: string }[])[0]?.text, 'done');
  assert.deepEqual(progress, [1, 2]);
  assert.ok(tokens.length >= 3, `event ids seen: ${tokens.join(', ')}`);
});

const message = (n: number, pad = 0): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n, pad: 'x'.repeat(pad) } });

async function replayed(store: SessionEventStore, after: string): Promise<{ stream: string; events: string[] }> {
  const events: string[] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id) => void events.push(id) });
  return { stream, events };
}

test('a session store keeps a bounded, contiguous tail of each stream; an id it no longer has is unknown', async () => {
  const store = new SessionEventStore(new EventBudget({ maxBytes: 1_000_000, maxBytesPerSession: 1_000_000, maxEventsPerSession: 5 }));
  const ids: string[] = [];
  for (let n = 0; n < 8; n += 1) ids.push(await store.storeEvent(n % 2 === 0 ? 'a' : 'b', message(n)));
  assert.equal(store.size(), 5);
  assert.equal(await store.getStreamIdForEventId(ids[0] ?? ''), undefined, 'the oldest are forgotten');
  assert.deepEqual(await replayed(store, ids[0] ?? ''), { stream: '', events: [] });
  assert.equal(await store.getStreamIdForEventId(ids[4] ?? ''), 'a');
  assert.deepEqual(await replayed(store, ids[4] ?? ''), { stream: 'a', events: [ids[6]] }, 'only its own stream, after the id');
  // The empty priming message keeps its id but is not replayed.
  const priming = await store.storeEvent('c', {} as JSONRPCMessage);
  const real = await store.storeEvent('c', message(99));
  assert.deepEqual(await replayed(store, priming), { stream: 'c', events: [real] });
  store.clear();
  assert.equal(store.size(), 0);
});

test('the budget of a front bounds all sessions together: the oldest event anywhere goes first; an oversized event leaves no gap', async () => {
  const budget = new EventBudget({ maxBytes: 3_000, maxBytesPerSession: 2_500, maxEventsPerSession: 100 });
  const one = new SessionEventStore(budget);
  const two = new SessionEventStore(budget);
  const old = await one.storeEvent('s', message(1, 900));
  await two.storeEvent('s', message(2, 900));
  await two.storeEvent('s', message(3, 900));
  assert.ok(budget.keptBytes() <= 3_000);
  await two.storeEvent('s', message(4, 900));
  assert.equal(await one.getStreamIdForEventId(old), undefined, "the oldest event (another session's) made room");
  assert.ok(budget.keptBytes() <= 3_000);

  const kept = await two.storeEvent('t', message(5, 10));
  const huge = await two.storeEvent('t', message(6, 5_000));
  assert.equal(await two.getStreamIdForEventId(huge), undefined, 'too large to keep');
  assert.equal(await two.getStreamIdForEventId(kept), undefined, 'and nothing before it in its stream: no resume skips it');
  // Under the budget in characters but over it in JSON bytes (each quote is written \"): measured, not kept.
  const escaped: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { pad: '"'.repeat(2_000) } };
  assert.equal(await two.getStreamIdForEventId(await two.storeEvent('u', escaped)), undefined, 'over the budget once serialized');
  assert.equal(await two.getStreamIdForEventId(await two.storeEvent('u', message(7, 1_000))), 'u', 'a message under it is kept');
  two.clear();
  one.clear();
  assert.equal(budget.keptBytes(), 0);
});
