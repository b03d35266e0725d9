import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../../src/config/load-config.js';
import { SpillwayError } from '../../src/errors.js';
import { addressKey } from '../../src/mcp/connection-limits.js';
import { startHttpFront, type HttpFront, type HttpFrontOptions } from '../../src/mcp/http-server.js';
import { jsonDepthScan } from '../../src/mcp/json-depth.js';
import { connectClient } from '../auth/helpers.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';

const auth = {
  mode: 'bearer' as const,
  tokens: [
    { principal: 'alice', secretEnv: 'TOKEN_ALICE' },
    { principal: 'bob', secretEnv: 'TOKEN_BOB' },
  ],
};
const env = { TOKEN_ALICE: 'a-token', TOKEN_BOB: 'b-token' };

async function front(t: TestContext, options: Partial<HttpFrontOptions> = {}, setup?: (host: TempHost) => void): Promise<HttpFront> {
  const host = await tempHost();
  t.after(() => host.cleanup());
  setup?.(host);
  const started = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', ...options });
  t.after(() => started.close());
  return started;
}

/** How deeply a parsed JSON value nests: 0 for a scalar, 1 for `[]` or `{}`. The reference the scan is held to. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

function nested(levels: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

/** A POST in an open session, as a client (or an attacker holding a valid credential) sends it. */
async function postInSession(url: string, sessionId: string, token: string, body: string | Buffer): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

test('a 10 MB body of nested brackets is refused naming server.maxJsonDepth, while another session’s call completes; memory stays bounded', async (t) => {
  // The size cap of the attack's time (16 MiB), so that only the depth cap stands in the way.
  const server = await front(t, { auth, env, maxBodyBytes: 16 * 1024 * 1024 });
  const alice = await connectClient(server.url, 'a-token');
  t.after(() => alice.client.close());
  const bob = await connectClient(server.url, 'b-token');
  t.after(() => bob.client.close());
  const half = 5 * 1024 * 1024;
  const attack = Buffer.alloc(2 * half, '[');
  attack.fill(']', half);
  const peakBefore = process.resourceUsage().maxRSS * 1024;

  const [refused, listed] = await Promise.all([
    postInSession(server.url, alice.transport.sessionId ?? '', 'a-token', attack),
    bob.client.callTool({ name: 'list_files', arguments: {} }),
  ]);

  assert.equal(refused.status, 400);
  const error = (JSON.parse(refused.text) as { error: { message: string; data: { code: string; details: { value: number } } } }).error;
  assert.equal(error.data.code, 'REQUEST_TOO_DEEP');
  assert.equal(error.data.details.value, 64);
  assert.match(error.message, /server\.maxJsonDepth/);
  assert.notEqual(listed.isError, true, 'the other session’s call completed');
  const growth = process.resourceUsage().maxRSS * 1024 - peakBefore;
  // Parsing it used to take ~500 MB; reading and dropping it should cost little more than the client's copy.
  assert.ok(growth < 64 * 1024 * 1024, `peak RSS grew by ${Math.round(growth / 1048576)} MiB`);
  assert.ok((await alice.client.listTools()).tools.length > 0, 'the refused session still works');
});

test('a body nested exactly server.maxJsonDepth deep is served; one level deeper is refused, and so is one over server.maxBodyBytes', async (t) => {
  let sandboxRoot = '';
  const server = await front(t, { auth, env, maxBodyBytes: 64 * 1024 }, (host) => (sandboxRoot = host.sandboxRoot));
  const alice = await connectClient(server.url, 'a-token');
  t.after(() => alice.client.close());
  const call = (content: unknown) => ({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'write_file', arguments: { path: 'args/deep.json', content } },
  });
  // The envelope takes three levels (the message, params, arguments); the content the rest.
  const atCap = call(nested(61));
  assert.equal(depthOf(atCap), 64);
  const served = await postInSession(server.url, alice.transport.sessionId ?? '', 'a-token', JSON.stringify(atCap));
  assert.equal(served.status, 200, served.text);
  assert.doesNotMatch(served.text, /"isError":true/);
  const written = JSON.parse(await readFile(path.join(sandboxRoot, 'alice', alice.transport.sessionId ?? '', 'args', 'deep.json'), 'utf8')) as unknown;
  assert.equal(depthOf(written), 61);

  const deeper = await postInSession(server.url, alice.transport.sessionId ?? '', 'a-token', JSON.stringify(call(nested(62))));
  assert.equal(deeper.status, 400);
  assert.match(deeper.text, /REQUEST_TOO_DEEP/);

  const large = await postInSession(server.url, alice.transport.sessionId ?? '', 'a-token', JSON.stringify(call('x'.repeat(64 * 1024))));
  assert.equal(large.status, 413);
  assert.match(large.text, /REQUEST_TOO_LARGE/);
  assert.match(large.text, /server\.maxBodyBytes/);
});

test('the limits default to server.* of the configuration; headers may not be given longer than the whole request', async (t) => {
  const server = loadConfig({ env: {} }).server;
  assert.deepEqual(
    [
      server.maxBodyBytes,
      server.maxJsonDepth,
      server.maxConnections,
      server.maxConnectionsPerAddress,
      server.headersTimeoutMs,
      server.requestTimeoutMs,
      server.idleTimeoutMs,
    ],
    [4_194_304, 64, 2048, 256, 10_000, 60_000, 10_000],
  );
  const isConfigProblem = (error: unknown) => SpillwayError.is(error) && error.code === 'CONFIG_INVALID' && /server\.headersTimeoutMs/.test(error.message);
  assert.throws(() => loadConfig({ env: {}, overrides: { server: { headersTimeoutMs: 5000, requestTimeoutMs: 1000 } } }), isConfigProblem);
  const host = await tempHost({ server: { maxConnections: 7, headersTimeoutMs: 300, requestTimeoutMs: 900, idleTimeoutMs: 400 } });
  t.after(() => host.cleanup());
  await assert.rejects(startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp', headersTimeoutMs: 5000 }), isConfigProblem);
  const configured = await startHttpFront(host.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => configured.close());
  assert.deepEqual(
    [configured.server.maxConnections, configured.server.headersTimeout, configured.server.requestTimeout, configured.server.keepAliveTimeout],
    [14, 300, 900, 400],
    'the host configuration applies (Node drops at accept only at twice server.maxConnections)',
  );
});

/** JSON values whose strings are full of brackets, quotes, backslashes, control and multi-byte characters. */
const trickyJson = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, tie('scalar'), tie('array'), tie('object')),
  scalar: fc.oneof(fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), tie('string')),
  string: fc
    .array(fc.constantFrom('[', ']', '{', '}', '"', '\\', '\\"', '\n', '\u0001', 'é', '😀', 'a', ' ', ':', ','), { maxLength: 12 })
    .map((parts) => parts.join('')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(tie('string') as fc.Arbitrary<string>, tie('value'), { maxKeys: 4 }),
}));

test('property: the depth scan agrees with the parsed value’s depth, however the text is cut into chunks', () => {
  fc.assert(
    fc.property(
      trickyJson.value,
      fc.constantFrom(undefined, 2, '\t'),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.integer({ min: 0, max: 8 }),
      (value, indent, cuts, limit) => {
        const bytes = Buffer.from(JSON.stringify(value, null, indent), 'utf8');
        const expected = depthOf(JSON.parse(bytes.toString('utf8')));
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points, bytes.length].slice(1).map((end, index, ends) => bytes.subarray(index === 0 ? 0 : (ends[index - 1] ?? 0), end));
        const unlimited = jsonDepthScan(Number.MAX_SAFE_INTEGER);
        for (const chunk of chunks) assert.ok(unlimited.feed(chunk));
        assert.equal(unlimited.deepest(), expected);
        const limited = jsonDepthScan(limit);
        const accepted = chunks.every((chunk) => limited.feed(chunk));
        assert.equal(accepted, expected <= limit, `depth ${expected}, limit ${limit}`);
      },
    ),
    { numRuns: 500 },
  );
});

test('client addresses count per IPv4 address and per IPv6 /64, however the address is written', () => {
  assert.equal(addressKey('10.1.2.3'), '10.1.2.3');
  assert.equal(addressKey('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('64:ff9b::10.1.2.3'), '64:ff9b:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (groups) => {
      const full = groups.map((group) => group.toString(16).padStart(4, '0')).join(':');
      const compressed = new URL(`http://[${full}]/`).hostname.slice(1, -1);
      assert.equal(addressKey(compressed), addressKey(full), compressed);
      assert.equal(
        addressKey(full),
        `${groups
          .slice(0, 4)
          .map((group) => group.toString(16))
          .join(':')}::/64`,
      );
    }),
  );
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A TCP connection to the front, from a chosen loopback address; it reads (so it sees the server close it), and drops what no one listens for. */
async function open(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.resume();
  return socket;
}

/** Sends one request on the connection and reads its answer (headers and a Content-Length body); the connection stays open. */
function exchange(socket: Socket, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: received.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed before an answer: ${received.toString('latin1')}`)));
    socket.write(request);
  });
}

const healthz = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';

test('connections over server.maxConnectionsPerAddress, then over server.maxConnections, get 503 with Retry-After and are closed', async (t) => {
  const server = await front(t, { maxConnections: 3, maxConnectionsPerAddress: 2, idleTimeoutMs: 600_000 });
  const port = Number(new URL(server.url).port);
  const serverSide = new Map<number, Socket>();
  server.server.on('connection', (socket: Socket) => serverSide.set(socket.remotePort ?? 0, socket));

  const first = await open(port);
  const second = await open(port);
  t.after(() => [first, second].forEach((socket) => socket.destroy()));
  assert.equal((await exchange(first, healthz)).status, 200);
  assert.equal((await exchange(second, healthz)).status, 200);

  const third = await open(port);
  const refused = await exchange(third, healthz);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers['retry-after'], '5');
  const error = (JSON.parse(refused.body) as { error: { message: string; data: { code: string; details: { scope: string } } } }).error;
  assert.equal(error.data.code, 'CONNECTION_LIMIT');
  assert.equal(error.data.details.scope, 'address');
  assert.match(error.message, /server\.maxConnectionsPerAddress = 2/);
  await once(third, 'close');

  let other: Socket;
  try {
    other = await open(port, '127.0.0.2');
  } catch (cause) {
    t.skip(`cannot connect from 127.0.0.2 here: ${(cause as Error).message}`);
    return;
  }
  t.after(() => other.destroy());
  assert.equal((await exchange(other, healthz)).status, 200, 'another address still gets in');
  const overall = await open(port, '127.0.0.3');
  const full = await exchange(overall, healthz);
  assert.equal(full.status, 503);
  assert.match(full.body, /server\.maxConnections = 3/);
  await once(overall, 'close');

  // Once one closes (the server has seen it go), its address gets a connection again.
  const gone = serverSide.get(first.localPort ?? -1);
  assert.ok(gone !== undefined);
  const goneClosed = once(gone, 'close');
  first.destroy();
  await goneClosed;
  const again = await open(port);
  t.after(() => again.destroy());
  assert.equal((await exchange(again, healthz)).status, 200);
});

test('slow and idle connections are closed: half a header, nothing at all, a trickling body, a kept-alive connection left quiet', async (t) => {
  const server = await front(t, { headersTimeoutMs: 500, requestTimeoutMs: 1000, idleTimeoutMs: 500 });
  const port = Number(new URL(server.url).port);
  const answered = (socket: Socket) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    return once(socket, 'close').then(() => text);
  };

  const halfHeader = await open(port);
  const halfHeaderClosed = answered(halfHeader);
  halfHeader.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  const silent = await open(port);
  const silentClosed = answered(silent);
  const trickle = await open(port);
  const trickleClosed = answered(trickle);
  trickle.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":');
  const quiet = await open(port);
  const quietClosed = once(quiet, 'close');
  assert.equal((await exchange(quiet, healthz)).status, 200);

  assert.match(await halfHeaderClosed, /^HTTP\/1\.1 408/);
  assert.match(await silentClosed, /^(HTTP\/1\.1 408|$)/);
  assert.match(await trickleClosed, /^HTTP\/1\.1 408/);
  await quietClosed;
});

test('the SSE streams of a real MCP session stay open through a tool call that outlasts the idle and header timeouts', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const running = new Promise<void>((resolve) => (entered = resolve));
  const server = await front(t, { headersTimeoutMs: 1000, requestTimeoutMs: 2000, idleTimeoutMs: 1000 }, (host) =>
    host.host.registerTool({
      name: 'wait_for_release',
      description: 'Answers once the test releases it.',
      inputSchema: { type: 'object' },
      handler: async () => {
        entered();
        await released;
        return { value: 'released' };
      },
    }),
  );
  const port = Number(new URL(server.url).port);
  let lastPost: Socket | undefined;
  let streamSocket: Socket | undefined;
  const streamOpened = new Promise<void>((resolve) =>
    server.server.on('request', (request: IncomingMessage) => {
      if (request.method === 'POST') lastPost = request.socket;
      if (request.method === 'GET' && request.url === '/mcp') {
        streamSocket = request.socket;
        resolve();
      }
    }),
  );
  const { client } = await connectClient(server.url);
  t.after(() => client.close());
  await streamOpened;

  const call = client.callTool({ name: 'wait_for_release', arguments: {} });
  await running;
  const callSocket = lastPost;
  assert.ok(callSocket !== undefined && streamSocket !== undefined);
  // Two connections opened now show both timeouts have come round while the call runs.
  const quiet = await open(port);
  const quietClosed = once(quiet, 'close');
  assert.equal((await exchange(quiet, healthz)).status, 200);
  const halfHeader = await open(port);
  const halfHeaderClosed = once(halfHeader, 'close');
  halfHeader.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  await Promise.all([quietClosed, halfHeaderClosed]);

  assert.equal(callSocket.destroyed, false, 'the tool call’s answer stream is open');
  assert.equal(streamSocket.destroyed, false, 'the session’s GET stream is open');
  release();
  const result = await call;
  assert.deepEqual(result.content, [{ type: 'text', text: 'released' }]);
  assert.equal(streamSocket.destroyed, false, 'the GET stream is still open after the call');
});
