import assert from 'node:assert/strict';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../src/config/schema.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { startRuntime } from '../../src/runtime/start-runtime.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { tempConfig, tempHost } from '../helpers/temp-host.js';
import { untilProcessEnded } from '../helpers/process-ended.js';
import { waitForFile } from '../helpers/wait-for.js';
import { faultyEntry, httpUpstream, untilStatus } from './upstream-fixtures.js';

// Liveness of upstream MCP servers, against real child processes (test/fixtures/faulty-upstream.ts).
// Every deadline, back-off and idle ping runs on ManualTimers: the test fires them; nothing waits for time.

const conversationId = 'c1';

async function liveHost(
  t: TestContext,
  fault: string,
  env: Record<string, string> = {},
  upstream: Record<string, unknown> = {},
  entry?: (stateDir: string) => Record<string, unknown>,
) {
  const host = await tempHost({
    policy: { rules: { 'f__*': 'allow' } },
    upstream: {
      timeoutMs: 600_000,
      handshakeTimeoutMs: 600_000,
      pingIntervalMs: 30_000,
      pingTimeoutMs: 600_000,
      reconnectMinMs: 50,
      reconnectMaxMs: 200,
      maxFailures: 2,
      ...upstream,
    },
  });
  t.after(() => host.cleanup());
  const stateDir = path.join(host.dir, 'state');
  await mkdir(stateDir, { recursive: true });
  host.host.updateConfig({ ...host.config, upstreams: { f: entry?.(stateDir) ?? faultyEntry(stateDir, fault, env) } as unknown as Config['upstreams'] });
  const timers = new ManualTimers();
  const manager = startUpstreams(host.host, { timers });
  return {
    env: host,
    manager,
    timers,
    stateDir,
    pidOf: async (generation: number) => {
      const file = path.join(stateDir, `pid-${generation}`);
      await waitForFile(file);
      return Number(await readFile(file, 'utf8'));
    },
    call: (name: string, args: Record<string, unknown> = {}) => host.host.execute({ name, arguments: args }, { conversationId }),
  };
}

test('an upstream that hangs before initialize does not hold up serving; it is reported connecting, then failed at the handshake deadline', async (t) => {
  const { env, manager, timers, pidOf, call } = await liveHost(t, 'hang-before-initialize');
  // startUpstreams has returned while the handshake is pending, and its deadline shows already
  // (before the client library has loaded: a loaded machine once answered /healthz in between).
  assert.equal(manager.reports()[0]?.state, 'connecting');
  assert.equal(manager.reports()[0]?.handshakeDeadline, '2026-12-01T12:10:00.000Z');
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const healthz = front.url.replace('/mcp', '/healthz');
  const health = (await (await fetch(healthz)).json()) as { upstreams: Record<string, { state: string; handshakeDeadline?: string }> };
  assert.equal(health.upstreams.f?.state, 'connecting');
  assert.equal(health.upstreams.f?.handshakeDeadline, '2026-12-01T12:10:00.000Z');
  const listed = await call('list_upstreams');
  assert.match(listed.text, /"name":"f"[\s\S]*"state":"connecting"/);
  assert.equal((await call('list_files')).isError, false, 'local tools answer meanwhile');

  const pid = await pidOf(1);
  assert.equal(await timers.fire('handshake'), 600_000);
  const failed = await untilStatus(manager, 'f', (report) => report.failures === 1);
  assert.equal(failed.state, 'reconnecting');
  assert.match(failed.lastError ?? '', /could not connect: no MCP handshake within 600000 ms \(upstream\.handshakeTimeoutMs\)/);
  assert.match(failed.lastError ?? '', /last stderr of f \(process \d+\) ---\nfaulty-upstream generation 1 started/);
  await untilProcessEnded(pid, 'faulty-upstream', 'the hanging upstream');
  const after = (await (await fetch(healthz)).json()) as { upstreams: Record<string, { state: string; failures: number }> };
  assert.deepEqual([after.upstreams.f?.state, after.upstreams.f?.failures], ['reconnecting', 1]);
  // Back-off applies: the next attempt waits for its timer, then connects again (and hangs again).
  await timers.fire('reconnect');
  await untilStatus(manager, 'f', (report) => report.state === 'connecting');
  await pidOf(2);
});

test('spillway serve (startRuntime) is up while an upstream hangs in its handshake', async (t) => {
  const { config, dir } = await tempConfig({ upstream: { handshakeTimeoutMs: 600_000 } });
  const stateDir = path.join(dir, 'state');
  await mkdir(stateDir, { recursive: true });
  const runtime = await startRuntime({
    config: { ...config, upstreams: { f: faultyEntry(stateDir, 'hang-before-initialize') } as unknown as Config['upstreams'] },
  });
  t.after(() => runtime.stop());
  t.after(() => rm(dir, { recursive: true, force: true }));
  // Had start-up waited for the handshake, startRuntime would not have resolved before the 10-minute deadline.
  assert.equal((runtime.host.health().upstreams as Record<string, { state: string }>).f?.state, 'connecting');
});

test("a slow upstream's tools appear when it is ready, and MCP sessions get one tools/list_changed", async (t) => {
  const { env, manager, pidOf, call } = await liveHost(t, '', { GATE: '1' });
  const server = createMcpServer(env.host, { conversationId });
  const client = new Client({ name: 'test', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(() => client.close());
  const before = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!before.includes('f__echo'));
  const early = await call('f__echo', { text: 'too early' });
  assert.equal(early.error?.code, 'UPSTREAM_UNAVAILABLE', 'a tool of an upstream still connecting is not "unknown"');
  assert.match(early.text, /"f" is still connecting \(its handshake deadline is [^)]+\), so echo was not run/);
  const delegated = await call('call_with_args_file', { tool: 'f__echo', argsPath: 'args/none.json' });
  assert.equal(delegated.error?.code, 'UPSTREAM_UNAVAILABLE', `a delegating call says so too: ${delegated.text}`);
  assert.equal((await call('nothing__here')).error?.code, 'TOOL_NOT_FOUND');
  let hostChanges = 0;
  env.host.on('tools-changed', () => (hostChanges += 1));
  const notified = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  process.kill(await pidOf(1), 'SIGUSR1');
  await notified;
  assert.equal(hostChanges, 1, 'three tools registered as one change');
  const after = (await client.listTools()).tools.map((tool) => tool.name);
  assert.deepEqual(after.filter((name) => name.startsWith('f__')).sort(), ['f__big', 'f__die', 'f__echo']);
  assert.equal(manager.reports()[0]?.state, 'connected');
  assert.equal((await call('f__echo', { text: 'hi' })).text, 'echo from generation 1: hi');
});

test('a frozen upstream fails its idle pings and is restarted; meanwhile calls say it is connecting; then calls work again', async (t) => {
  const { manager, timers, pidOf, call } = await liveHost(t, 'freeze-after-initialize', { GATE: '2' });
  await manager.settled();
  assert.equal(manager.reports()[0]?.state, 'connected');
  const first = await pidOf(1);
  assert.equal(await timers.fire('ping'), 30_000, 'an idle connection is pinged after upstream.pingIntervalMs');
  assert.equal(await timers.fire('ping-timeout'), 600_000);
  // The next idle ping is scheduled once the failure is counted; the upstream is still up.
  await timers.fire('ping');
  assert.equal(manager.reports()[0]?.state, 'connected', 'one failed ping is not enough (maxFailures 2)');
  await timers.fire('ping-timeout');
  const restarted = await untilStatus(manager, 'f', (report) => report.restarts === 1);
  assert.equal(restarted.state, 'reconnecting');
  assert.match(
    restarted.lastError ?? '',
    /stopped answering and was restarted: it did not answer 2 pings in a row \(last: no answer to a ping within 600000 ms/,
  );
  assert.match(restarted.lastError ?? '', /generation 1 started/);
  await untilProcessEnded(first, 'faulty-upstream', 'the frozen upstream');

  await timers.fire('reconnect');
  await untilStatus(manager, 'f', (report) => report.state === 'connecting');
  const meanwhile = await call('f__echo', { text: 'too early' });
  assert.equal(meanwhile.error?.code, 'UPSTREAM_UNAVAILABLE');
  assert.match(meanwhile.text, /"f" is still connecting \(its handshake deadline is 2026-12-01T12:\d\d:\d\d\.\d{3}Z\), so echo was not run/);
  process.kill(await pidOf(2), 'SIGUSR1');
  const back = await untilStatus(manager, 'f', (report) => report.state === 'connected');
  assert.equal(back.restarts, 1);
  assert.equal(back.failures, 0);
  assert.equal((await call('f__echo', { text: 'back' })).text, 'echo from generation 2: back');
});

test('a call timeout is followed by a ping at once; calls that keep timing out restart the upstream', async (t) => {
  // The call timeout is the SDK's own (real time), kept short; nothing asserts on how long anything took.
  const { manager, timers, call } = await liveHost(t, 'freeze-after-initialize', {}, { timeoutMs: 200 });
  await manager.settled();
  const timedOut = await call('f__echo', { text: 'lost' });
  assert.equal(timedOut.error?.code, 'TOOL_TIMEOUT');
  assert.ok(timers.kinds().includes('ping-timeout'), 'a ping is in flight right after the timeout');
  assert.ok(!timers.kinds().includes('ping'), 'not the idle ping: an immediate one');
  assert.equal(manager.reports()[0]?.state, 'connected');
  const again = await call('f__echo', { text: 'lost again' });
  assert.equal(again.error?.code, 'TOOL_TIMEOUT');
  const restarted = await untilStatus(manager, 'f', (report) => report.restarts === 1);
  assert.match(restarted.lastError ?? '', /stopped answering and was restarted: 2 calls in a row timed out/);
  await timers.fire('reconnect');
  await untilStatus(manager, 'f', (report) => report.state === 'connected');
  assert.equal((await call('f__echo', { text: 'fresh' })).text, 'echo from generation 2: fresh');
});

test('an over-size answer is a size-cap error naming the cap, not a JSON error of its tail', async (t) => {
  const { manager, timers, call } = await liveHost(t, '', { OVERSIZE_BYTES: String(3 * 1024 * 1024) }, { maxMessageBytes: 1_048_576 });
  await manager.settled();
  const result = await call('f__big');
  assert.equal(result.error?.code, 'RESULT_TOO_LARGE', result.text);
  assert.match(result.text, /answered big with a message of at least \d+ bytes, over the cap of 1048576 bytes \(upstream\.maxMessageBytes\)/);
  assert.doesNotMatch(result.text, /JSON|Unexpected|Unterminated/);
  assert.deepEqual(
    { limit: (result.error?.details as Record<string, unknown>).limit, value: (result.error?.details as Record<string, unknown>).value },
    { limit: 'upstream.maxMessageBytes', value: 1_048_576 },
  );
  const lost = await untilStatus(manager, 'f', (report) => report.state === 'reconnecting');
  assert.match(lost.lastError ?? '', /the connection closed: the server sent a message of at least \d+ bytes, over the cap of 1048576 bytes/);
  await timers.fire('reconnect');
  await untilStatus(manager, 'f', (report) => report.state === 'connected');
  assert.equal((await call('f__echo', { text: 'small' })).text, 'echo from generation 2: small');
});

test("a dead process's error names its exit code or signal, with its own stderr only", async (t) => {
  const { manager, timers, call } = await liveHost(t, '');
  await manager.settled();
  const exited = await call('f__die', { code: 7 });
  assert.equal(exited.error?.code, 'UPSTREAM_UNAVAILABLE');
  assert.match(exited.text, /closed the connection during die \(the server process \(pid \d+\) exited with code 7\)/);
  assert.match(exited.text, /generation 1 dies on purpose/);
  const down = await untilStatus(manager, 'f', (report) => report.state === 'reconnecting');
  assert.match(down.lastError ?? '', /the connection closed: the server process \(pid \d+\) exited with code 7/);

  await timers.fire('reconnect');
  await untilStatus(manager, 'f', (report) => report.state === 'connected');
  const killed = await call('f__die', { signal: 'SIGKILL' });
  assert.match(killed.text, /\(the server process \(pid \d+\) was killed by signal SIGKILL\)/);
  assert.match(killed.text, /generation 2 dies on purpose/);
  assert.doesNotMatch(killed.text, /generation 1/, "the first process's stderr is not the second's");
  const downAgain = await untilStatus(
    manager,
    'f',
    (report) => report.state === 'reconnecting' && report.failures === 1 && /SIGKILL/.test(report.lastError ?? ''),
  );
  assert.doesNotMatch(downAgain.lastError ?? '', /generation 1/);
});

test('a Streamable HTTP upstream that stops answering pings is reconnected with back-off', async (t) => {
  const web = await httpUpstream();
  t.after(() => web.close());
  const { manager, timers, call } = await liveHost(t, '', {}, {}, () => ({ url: web.url }));
  await manager.settled();
  assert.equal((await call('f__echo', { text: 'one' })).text, 'echo: one');
  web.freeze(true);
  await timers.fire('ping');
  await timers.fire('ping-timeout');
  await timers.fire('ping');
  await timers.fire('ping-timeout');
  const reconnecting = await untilStatus(manager, 'f', (report) => report.restarts === 1);
  assert.equal(reconnecting.state, 'reconnecting');
  assert.match(reconnecting.lastError ?? '', /stopped answering and was reconnected: it did not answer 2 pings in a row/);
  web.freeze(false);
  await timers.fire('reconnect');
  await untilStatus(manager, 'f', (report) => report.state === 'connected');
  assert.equal((await call('f__echo', { text: 'two' })).text, 'echo: two');
});
