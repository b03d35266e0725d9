import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import { UpstreamManager } from '../../src/upstream/upstream-manager.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { tempHost, type TempHost } from '../helpers/temp-host.js';
import { untilProcessEnded } from '../helpers/process-ended.js';
import { httpUpstream, recordingEntry, waitFor } from './upstream-fixtures.js';

const conversationId = 'c1';

async function hostWithUpstreams(
  t: { after(fn: () => Promise<void>): void },
  upstreams: (recordDir: string) => Record<string, unknown>,
  extra: Record<string, unknown> = {},
  timers?: ManualTimers,
) {
  const recordDirHolder = { dir: '' };
  const env = await tempHost({
    upstreams: {},
    policy: { rules: { 'rec__*': 'allow', 'web__*': 'allow' } },
    upstream: { timeoutMs: 20_000, reconnectMinMs: 50, reconnectMaxMs: 200 },
    ...extra,
  });
  recordDirHolder.dir = path.join(env.dir, 'received');
  env.host.updateConfig({ ...env.config, upstreams: upstreams(recordDirHolder.dir) as TempHost['config']['upstreams'] });
  const manager = startUpstreams(env.host, timers === undefined ? {} : { timers });
  t.after(() => env.cleanup());
  await manager.settled();
  return {
    env,
    manager,
    recordDir: recordDirHolder.dir,
    call: (name: string, args: Record<string, unknown> = {}) => env.host.execute({ name, arguments: args }, { conversationId }),
  };
}

test('upstream tools are offered as NAME__tool with their input schemas and origin, and answer through the host', async (t) => {
  const { env, manager, call } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir) }));
  const tool = env.host.getTool('rec__record');
  assert.ok(tool !== undefined);
  assert.deepEqual(tool.origin, { upstream: 'rec' });
  assert.deepEqual(tool.inputSchema.required, ['title', 'body']);
  assert.match(tool.description, /Records the arguments it receives[\s\S]*call_with_args_file/);
  assert.deepEqual(manager.reports()[0]?.offered.sort(), ['rec__add_tool', 'rec__big', 'rec__crash', 'rec__fail', 'rec__record', 'rec__slow']);
  const result = await call('rec__record', { title: 't', body: 'hello' });
  assert.equal(result.isError, false, result.text);
  assert.equal(result.text, 'recorded 5 body bytes as call-0001');
  const invalid = await call('rec__record', { title: 't' });
  assert.equal(invalid.error?.code, 'INVALID_ARGUMENTS', 'the upstream schema is enforced before sending');
  const listed = await call('list_upstreams');
  const upstreams = (listed.value as { upstreams: { name: string; state: string; offered: string[] }[] }).upstreams;
  assert.equal(upstreams[0]?.state, 'connected');
  assert.ok(upstreams[0]?.offered.includes('rec__record'));
  assert.deepEqual(env.host.health().upstreams, { rec: { state: 'connected', tools: 6, failures: 0, restarts: 0 } });
});

test('an upstream isError result is spilled like a local error, head and tail kept', async (t) => {
  const { env, call } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir) }));
  const result = await call('rec__fail');
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'UPSTREAM_ERROR');
  assert.ok(result.spill?.path.startsWith('errors/'), result.text);
  assert.match(result.text, /Traceback/);
  assert.match(result.text, /ValueError: upstream exploded at the very end/);
  const full = await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path), 'utf8');
  assert.match(full, /module_30\.py[\s\S]*ValueError: upstream exploded at the very end/);
});

test('an upstream that times out fails with TOOL_TIMEOUT and its full error (with its stderr) is spilled', async (t) => {
  // The slow call never answers in time (an hour against 3 s); 3 s leave a loaded machine room
  // for the stderr line to arrive and for the next, quick call to answer within the limit.
  const { env, call } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir, { timeoutMs: 3000 }) }));
  const result = await call('rec__slow', { ms: 3_600_000 });
  assert.equal(result.error?.code, 'TOOL_TIMEOUT');
  assert.match(result.text, /did not answer slow within 3000 ms/);
  assert.ok(result.spill?.path.startsWith('errors/'), result.text);
  const full = await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path), 'utf8');
  assert.match(full, /upstreams\.rec\.timeoutMs/);
  assert.match(full, /last stderr of rec[\s\S]*working\.\.\./);
  const after = await call('rec__record', { title: 't', body: 'still alive' });
  assert.equal(after.isError, false, 'a timeout does not take the connection down');
});

test('a 20 MB upstream result is spilled to a file, not handed to the model', async (t) => {
  const { env, call } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir) }));
  const result = await call('rec__big', { mb: 20 });
  assert.equal(result.isError, false, result.text.slice(0, 500));
  assert.equal(result.spill?.format, 'jsonl');
  assert.ok(result.spill.bytes > 19 * 1024 * 1024, `spilled ${result.spill.bytes} bytes`);
  assert.equal(result.truncated, true);
  assert.ok(result.text.length < 200_000, `the model reads ${result.text.length} characters`);
  const file = path.join(env.host.sandbox.conversation(conversationId).dir, result.spill.path);
  const text = await readFile(file, 'utf8');
  const lines = text.trimEnd().split('\n');
  assert.equal(lines.length, result.spill.rows);
  assert.deepEqual(JSON.parse(lines[lines.length - 1] as string).id, lines.length - 1);
});

test('an upstream that dies is reported and reconnected with back-off while the host keeps serving', async (t) => {
  const { env, manager, recordDir, call } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir) }));
  const crashed = await call('rec__crash');
  assert.equal(crashed.error?.code, 'UPSTREAM_UNAVAILABLE');
  assert.match(crashed.text, /closed the connection during crash/);
  const local = await call('list_files');
  assert.equal(local.isError, false, 'local tools keep working');
  await waitFor(() => manager.reports()[0]?.state === 'connected' && manager.reports()[0]?.failures === 0, 'the reconnect');
  const again = await call('rec__record', { title: 't', body: 'after restart' });
  assert.equal(again.isError, false, again.text);
  const starts = (await readFile(path.join(recordDir, 'starts.log'), 'utf8')).trim().split('\n');
  assert.equal(starts.length, 2, 'the server was started twice');
  assert.ok(env.host.getTool('rec__record') !== undefined);
});

test('an upstream that fails to start is reported; the others are served', async (t) => {
  // Manual timers: the retry waits for the test, so the report read below is the one after the first attempt.
  const timers = new ManualTimers();
  const { manager, call } = await hostWithUpstreams(
    t,
    (dir) => ({ rec: recordingEntry(dir), broken: { command: path.join(dir, 'no-such-program') } }),
    {},
    timers,
  );
  const reports = manager.reports();
  const broken = reports.find((report) => report.name === 'broken');
  assert.ok(broken !== undefined && broken.state === 'reconnecting', JSON.stringify(broken));
  assert.match(broken.lastError ?? '', /could not connect: .*ENOENT/);
  assert.ok(broken.nextAttemptAt !== undefined);
  assert.deepEqual(broken.offered, []);
  const listed = await call('list_upstreams');
  assert.match(listed.text, /"name":"broken"[\s\S]*"state":"reconnecting"/);
  const ok = await call('rec__record', { title: 't', body: 'b' });
  assert.equal(ok.isError, false);
  await timers.fire('reconnect');
  await waitFor(() => (manager.reports().find((report) => report.name === 'broken')?.failures ?? 0) >= 2, 'a retry of the broken upstream');
});

test('tools/list_changed from an upstream refreshes the catalogue', async (t) => {
  const { env, call } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir) }));
  let changes = 0;
  env.host.on('tools-changed', () => (changes += 1));
  const added = await call('rec__add_tool', { name: 'late_tool' });
  assert.equal(added.isError, false);
  await waitFor(() => env.host.getTool('rec__late_tool'), 'the new tool');
  assert.ok(changes >= 1);
  const ran = await call('rec__late_tool');
  assert.equal(ran.text, 'late_tool ran');
});

test('a Streamable HTTP upstream is reached at its URL with the configured headers', async (t) => {
  const web = await httpUpstream();
  t.after(() => web.close());
  const { call } = await hostWithUpstreams(t, () => ({ web: { url: web.url, headers: { authorization: 'Bearer test-token' } } }));
  const result = await call('web__echo', { text: 'over http' });
  assert.equal(result.text, 'echo: over http');
  assert.ok(web.headers.length > 0);
  assert.ok(web.headers.every((headers) => headers.authorization === 'Bearer test-token'));
});

test('closing the host stops the upstream children', async (t) => {
  const { env, manager, recordDir } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir) }));
  const pid = manager.reports()[0]?.pid;
  assert.ok(typeof pid === 'number');
  await env.host.close();
  await untilProcessEnded(pid, 'recording-upstream', 'the upstream child');
  assert.deepEqual((await readdir(recordDir)).sort(), ['starts.log']);
  assert.equal(manager.reports()[0]?.state, 'closed');
});

test('a Streamable HTTP upstream that goes away is reported and reconnected when it is back', async (t) => {
  const first = await httpUpstream();
  const port = Number(new URL(first.url).port);
  const { manager, call } = await hostWithUpstreams(t, () => ({ web: { url: first.url } }));
  assert.equal((await call('web__echo', { text: 'one' })).text, 'echo: one');
  await first.close();
  const down = await call('web__echo', { text: 'two' });
  assert.equal(down.error?.code, 'UPSTREAM_UNAVAILABLE');
  await waitFor(() => manager.reports()[0]?.state === 'reconnecting', 'the upstream to be marked down');
  const second = await httpUpstream(port);
  t.after(() => second.close());
  await waitFor(() => manager.reports()[0]?.state === 'connected', 'the reconnect');
  assert.equal((await call('web__echo', { text: 'three' })).text, 'echo: three');
});

test('closing while an upstream hangs in its handshake stops it without waiting for the connect timeout', async (t) => {
  const env = await tempHost({
    upstreams: { mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
    upstream: { timeoutMs: 600_000, reconnectMinMs: 50, reconnectMaxMs: 200 },
  });
  t.after(() => env.cleanup());
  const manager = new UpstreamManager({ host: env.host, config: env.config, logger: env.host.logger });
  const started = manager.settled();
  await waitFor(() => manager.get('mute')?.status().state === 'connecting', 'the attempt');
  const outcome = await Promise.race([
    manager.close().then(() => 'closed'),
    new Promise((resolve) => setTimeout(resolve, 30_000, 'still waiting')).then((value) => value),
  ]);
  assert.equal(outcome, 'closed', 'close() must abort the hanging handshake (the connect timeout is 10 minutes)');
  await started;
  assert.equal(manager.reports()[0]?.state, 'closed');
});

test('an upstream tool whose name is already taken is not offered, and the local tool is kept', async (t) => {
  const env = await tempHost({ upstreams: {}, policy: { rules: { '*': 'allow' } } });
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'rec__record', description: 'local', inputSchema: { type: 'object' }, handler: () => ({ value: 'local ran' }) });
  env.host.updateConfig({ ...env.config, upstreams: { rec: recordingEntry(path.join(env.dir, 'received')) as TempHost['config']['upstreams'][string] } });
  const manager = startUpstreams(env.host);
  await manager.settled();
  assert.equal(env.host.getTool('rec__record')?.description, 'local');
  assert.ok(!manager.reports()[0]?.offered.includes('rec__record'));
  assert.ok(manager.reports()[0]?.offered.includes('rec__fail'));
});

test('GET /healthz on the HTTP front reports each upstream', async (t) => {
  const { env } = await hostWithUpstreams(t, (dir) => ({ rec: recordingEntry(dir), broken: { command: path.join(dir, 'no-such-program') } }));
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const health = (await (await fetch(front.url.replace('/mcp', '/healthz'))).json()) as { upstreams: Record<string, { state: string; tools: number }> };
  assert.equal(health.upstreams.rec?.state, 'connected');
  assert.equal(health.upstreams.rec?.tools, 6);
  assert.equal(health.upstreams.broken?.state, 'reconnecting');
});
