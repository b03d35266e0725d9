import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { makeRows } from '../helpers/temp-host.js';
import { spawnChild, stopBeforeRemoving } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = fileURLToPath(new URL('../fixtures/serve-with-rows-tool.js', import.meta.url));
const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));
const bin = path.join(packageRoot, 'bin', 'spillway.js');
const expectedRows = makeRows(321);

async function writeConfig(dir: string, level = 'warn'): Promise<string> {
  const file = path.join(dir, 'spillway.json');
  await writeFile(
    file,
    JSON.stringify({ sandbox: { root: 'sandbox' }, data: { dir: 'data' }, server: { host: '127.0.0.1', port: 0, path: '/mcp' }, log: { level } }),
  );
  return file;
}

/** Starts a server process and waits for the line that holds its URL. */
async function startServer(
  t: import('node:test').TestContext,
  args: string[],
): Promise<{ child: ChildProcess; url: URL; stderr: () => string; stdout: () => string }> {
  // Stopped and awaited when the test ends, before its temporary folder is removed.
  const child = spawnChild(t, process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  let stdout = '';
  const url = await new Promise<URL>((resolve, reject) => {
    lines.on('line', (line) => {
      stdout += `${line}\n`;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line);
      if (match) resolve(new URL(match[1]!));
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before printing its URL:\n${stderr}`)));
  });
  return { child, url, stderr: () => stderr, stdout: () => stdout };
}

function textOf(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

/** Reads every row of a JSONL file back through read_file, page by page. */
async function readAllRows(client: Client, spillPath: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  for (let offset = 1; ;) {
    const page = (await client.callTool({ name: 'read_file', arguments: { path: spillPath, offset, limit: 100 } })) as CallToolResult;
    assert.equal(page.isError, false, textOf(page));
    const body = textOf(page)
      .split('\n')
      .filter((line) => /^\s+\d+\t/.test(line));
    if (body.length === 0) break;
    for (const line of body) rows.push(JSON.parse(line.slice(line.indexOf('\t') + 1)));
    offset += body.length;
    if (!/continue with offset=/.test(textOf(page))) break;
  }
  return rows;
}

async function spillAndReadBack(client: Client): Promise<string> {
  const result = (await client.callTool({ name: 'fixture_rows', arguments: {} })) as CallToolResult;
  assert.equal(result.isError, false);
  const meta = result._meta?.['spillway/spill'] as { path: string; format: string; bytes: number; rows: number; columns: string[]; expiresAt: string };
  assert.ok(meta, 'the result carries _meta["spillway/spill"]');
  assert.match(meta.path, /^results\/\d{4}-fixture_rows\.jsonl$/);
  assert.equal(meta.format, 'jsonl');
  assert.equal(meta.rows, 321);
  assert.deepEqual(meta.columns, ['id', 'name', 'amount', 'active', 'note']);
  assert.ok(meta.bytes > 1000);
  assert.ok(Date.parse(meta.expiresAt) > Date.now());
  assert.match(textOf(result), new RegExp(`Saved to ${meta.path.replace(/\./g, '\\.')}`));
  assert.deepEqual(await readAllRows(client, meta.path), expectedRows);
  return meta.path;
}

test('spillway serve over Streamable HTTP: rows spill, _meta carries the facts, read_file reads them back; sessions are separate conversations', async (t) => {
  const dir = await tempDir(t);
  const config = await writeConfig(dir);
  const { url } = await startServer(t, [fixture, '--config', config]);

  const health = (await (await fetch(new URL('/healthz', url))).json()) as { status: string; tools: number; sessions: number };
  assert.equal(health.status, 'ok');
  assert.equal(health.sessions, 0);

  const first = new Client({ name: 'e2e-a', version: '1' });
  const second = new Client({ name: 'e2e-b', version: '1' });
  const firstTransport = new StreamableHTTPClientTransport(url);
  const secondTransport = new StreamableHTTPClientTransport(url);
  await first.connect(firstTransport);
  await second.connect(secondTransport);
  t.after(async () => {
    await first.close();
    await second.close();
  });
  assert.notEqual(firstTransport.sessionId, secondTransport.sessionId);
  const { tools } = await first.listTools();
  assert.ok(tools.some((tool) => tool.name === 'fixture_rows'));
  assert.equal(health.tools, tools.length, '/healthz counts the tools the client sees');
  assert.equal(((await (await fetch(new URL('/healthz', url))).json()) as { sessions: number }).sessions, 2);

  const spillPath = await spillAndReadBack(first);

  // The second session is another conversation: the first one's file is not there for it.
  const notThere = (await second.callTool({ name: 'read_file', arguments: { path: spillPath } })) as CallToolResult;
  assert.equal(notThere.isError, true);
  assert.match(textOf(notThere), /No file at/);
  const traversal = (await second.callTool({ name: 'read_file', arguments: { path: `../${firstTransport.sessionId}/${spillPath}` } })) as CallToolResult;
  assert.equal(traversal.isError, true);
  assert.match(textOf(traversal), /contains "\.\."/);
  const listed = (await second.callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
  assert.deepEqual((JSON.parse(textOf(listed)) as { files: unknown[] }).files, []);

  // Its own spill lands in its own folder, numbered from 1 again.
  assert.equal(await spillAndReadBack(second), 'results/0001-fixture_rows.jsonl');
  // The binary runs in another process: conversations are <root>/<principal>/<conversation>, principal local without auth.
  const folders = (await readdir(path.join(dir, 'sandbox', 'local'))).filter((name) => !name.startsWith('.')).sort();
  assert.deepEqual(folders, [firstTransport.sessionId, secondTransport.sessionId].sort());

  // An unknown session id is refused rather than served as a new conversation.
  const stray = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'not-a-session' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.equal(stray.status, 404);

  // The execution record holds both calls.
  const records = (await readFile(path.join(dir, 'data', 'records.jsonl'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);
  assert.ok(records.length >= 2);
});

test('spillway serve over stdio: rows spill, _meta carries the facts, read_file reads them back', async (t) => {
  const dir = await tempDir(t);
  const config = await writeConfig(dir);
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixture, '--stdio', '--config', config], stderr: 'pipe' });
  const client = new Client({ name: 'e2e-stdio', version: '1' });
  await client.connect(transport);
  // Closing the client awaits the server process's exit; that must happen before the folder goes.
  stopBeforeRemoving(t, () => client.close());
  assert.equal(await spillAndReadBack(client), 'results/0001-fixture_rows.jsonl');
  assert.deepEqual(await readdir(path.join(dir, 'sandbox', 'local', 'stdio-e2e', 'results')), ['0001-fixture_rows.jsonl', '0001-fixture_rows.jsonl.meta.json']);
});

test('the real `spillway serve` binary prints its address and how to connect, answers /healthz and serves the built-in tools', async (t) => {
  const dir = await tempDir(t);
  const config = await writeConfig(dir);
  const { child, url, stdout } = await startServer(t, [bin, 'serve', '--config', config]);
  const health = (await (await fetch(new URL('/healthz', url))).json()) as { status: string };
  assert.equal(health.status, 'ok');
  const client = new Client({ name: 'e2e-bin', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url));
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools
      .map((tool) => tool.name)
      .filter((name) => ['read_file', 'search_file', 'list_files'].includes(name))
      .sort(),
    ['list_files', 'read_file', 'search_file'],
  );
  const listed = (await client.callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
  assert.equal(listed.isError, false);
  assert.match(stdout(), new RegExp(`connect: claude mcp add --transport http spillway ${url.href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await client.close();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('the real `spillway serve --stdio` binary serves the built-in tools in one conversation; its info logs stay off stdout', async (t) => {
  const dir = await tempDir(t);
  const config = await writeConfig(dir, 'info');
  const client = new Client({ name: 'e2e-bin-stdio', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--stdio', '--config', config, '--conversation', 'resumed-1'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await client.connect(transport);
  // Closing the client awaits the server process's exit; that must happen before the folder goes.
  stopBeforeRemoving(t, () => client.close());
  const listed = (await client.callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
  assert.equal(listed.isError, false);
  // The call's info log line arrives on stderr (on stdout it would have broken the protocol above).
  await waitForText(transport.stderr, () => stderr, '"msg":"tool call"');
  assert.match(stderr, /"msg":"tool call"/);
  assert.doesNotMatch(stderr, /"arguments"/, 'no argument values at info level');
  assert.deepEqual(await readdir(path.join(dir, 'sandbox', 'local', 'resumed-1')), ['args', 'errors', 'outputs', 'results', 'scripts']);
});

/** Resolves when `text()` contains `marker`, checking on each chunk the stream delivers (fails if the stream ends first). */
function waitForText(stream: import('node:stream').Stream | null | undefined, text: () => string, marker: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (text().includes(marker)) return resolve();
    if (stream === null || stream === undefined) return reject(new Error(`no stream to wait for ${marker} on`));
    // Other listeners append to text() on 'data'; this one runs after them.
    const onData = () =>
      setImmediate(() => {
        if (!text().includes(marker)) return;
        stream.off('data', onData);
        stream.off('end', onEnd);
        resolve();
      });
    const onEnd = () => reject(new Error(`the stream ended before ${marker} appeared:\n${text()}`));
    stream.on('data', onData);
    stream.once('end', onEnd);
  });
}
