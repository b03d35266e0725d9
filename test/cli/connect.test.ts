// The client configurations of docs/connect.md, run for real: the SDK over
// stdio (spawning `spillway serve --stdio` as the docs say) and over HTTP, and
// the download-links snippet against a serve with server.publicUrl and a key.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../src/config/package-root.js';
import type { Attachment } from '../../src/host/tool.js';
import { connectClient } from '../auth/helpers.js';
import { aliceToken, bearerAuth, bytesOf } from '../downloads/helpers.js';
import { adoptChild, type AfterHook } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const bin = path.join(packageRoot, 'bin', 'spillway.js');
const fraudQuery = "SELECT * FROM transactions WHERE label = 'fraud' AND amount >= 200";

async function configFile(t: AfterHook, server?: Record<string, unknown>): Promise<{ dir: string; file: string }> {
  const dir = await tempDir(t, 'spillway-connect-');
  const file = path.join(dir, 'spillway.json');
  await writeFile(
    file,
    JSON.stringify({
      sandbox: { root: 'sandbox' },
      data: { dir: 'data' },
      demo: { rows: 3000, seed: 4 },
      log: { level: 'warn' },
      ...(server === undefined ? {} : { server }),
    }),
  );
  return { dir, file };
}

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'query_sql'));
  const result = (await client.callTool({ name: 'query_sql', arguments: { sql: fraudQuery } })) as CallToolResult;
  assert.equal(result.isError, false);
  const spill = result._meta?.['spillway/spill'] as { path: string; rows: number } | undefined;
  assert.match(spill?.path ?? '', /^results\/0001-query_sql\.jsonl$/);
  assert.ok((spill?.rows ?? 0) > 0);
  assert.equal(result.content[0]?.type, 'text');
}

test('docs/connect.md: the SDK client over stdio starts spillway and queries it', async (t) => {
  const { file } = await configFile(t);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--stdio'],
    env: { ...(process.env as Record<string, string>), SPILLWAY_CONFIG: file },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'my-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    await exercise(client);
  } finally {
    await client.close();
  }
});

/** Starts `spillway serve` on a free port and resolves with its MCP URL, read from the banner. */
async function serve(t: AfterHook, file: string, env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, 'serve', '--config', file, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  adoptChild(t, child);
  let stdout = '';
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stdout}`)));
  });
  return { url, child };
}

test('docs/connect.md: the SDK client over Streamable HTTP queries a running spillway serve', async (t) => {
  const { file } = await configFile(t);
  const { url, child } = await serve(t, file);
  const client = new Client({ name: 'my-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    await exercise(client);
  } finally {
    await client.close();
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
});

/**
 * A reverse proxy listening before spillway starts, so server.publicUrl can name it (as a
 * deployment behind a proxy does); it forwards every request to `target` once that is set.
 */
async function publicProxy(t: AfterHook): Promise<{ base: string; forwardTo(target: URL): void }> {
  let target: URL | undefined;
  const proxy = createServer((request, response) => {
    if (target === undefined) return void response.writeHead(502).end();
    // The Host the user's browser sent names the proxy; spillway is reached at its own address.
    const headers = { ...request.headers };
    delete headers.host;
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.once('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    const closed = new Promise((resolve) => proxy.close(resolve));
    proxy.closeAllConnections();
    return closed;
  });
  const { port } = proxy.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, forwardTo: (url) => (target = url) };
}

/** The snippet of docs/connect.md, step by step, and each link fetched as a browser would: no header. */
async function followDownloadSnippet(input: { client: Client; conversation: string; publicUrl: string; sandbox: string }): Promise<void> {
  const { client, conversation } = input;
  const result = (await client.callTool({ name: 'export_table', arguments: { source: 'results/0001-query_sql.jsonl', format: 'xlsx' } })) as CallToolResult;
  assert.equal(result.isError, false, JSON.stringify(result.content));
  const attachments = (result.structuredContent as { attachments?: Attachment[] } | undefined)?.attachments ?? [];
  const links = result.content.filter((block) => block.type === 'resource_link');
  assert.equal(links.length, 1);
  assert.equal(attachments.length, 1);
  for (const [i, block] of links.entries()) {
    const url = block._meta?.downloadUrl as string | undefined;
    const until = block._meta?.downloadExpiresAt as string | undefined;
    const card = attachments[i];
    assert.ok(url !== undefined && until !== undefined && card !== undefined);
    assert.equal(card.downloadUrl, url);
    assert.equal(card.downloadExpiresAt, until);
    assert.equal(block.name, card.filename);
    assert.match(card.filename, /\.xlsx$/);
    assert.ok(url.startsWith(`${input.publicUrl}/files/${conversation}/${card.path}?sig=`), url);
    assert.ok(Date.parse(until) > Date.now());
    assert.ok(!JSON.stringify(result.content.filter((part) => part.type === 'text')).includes(url), 'the model never reads the link');

    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), card.mimeType);
    const onDisk = await readFile(path.join(input.sandbox, conversation, card.path));
    assert.equal(onDisk.length, card.bytes);
    assert.deepEqual(await bytesOf(response), onDisk);
    // Without the signature the same path wants the token.
    assert.equal((await fetch(url.slice(0, url.indexOf('?')))).status, 401);
  }
}

test("docs/connect.md: download links for users: the card's signed downloadUrl fetches the export without a header", async (t) => {
  const proxy = await publicProxy(t);
  // The key from the environment (server.downloads.signingKeyEnv), as docs/auth.md and deploy/ set it.
  const { dir, file } = await configFile(t, { publicUrl: proxy.base, auth: bearerAuth, downloads: { signingKeyEnv: 'SPILLWAY_DOWNLOAD_KEY' } });
  const { url } = await serve(t, file, { ...process.env, SPILLWAY_DOWNLOAD_KEY: randomBytes(48).toString('base64') });
  proxy.forwardTo(new URL(url));
  const { client, transport } = await connectClient(url, aliceToken);
  try {
    await exercise(client);
    await followDownloadSnippet({ client, conversation: transport.sessionId ?? '', publicUrl: proxy.base, sandbox: path.join(dir, 'sandbox', 'alice') });
  } finally {
    await client.close();
  }
});
