// The client configurations of docs/connect.md, run for real: the SDK over
// stdio (spawning `spillway serve --stdio` as the docs say) and over HTTP.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { packageRoot } from '../../src/config/package-root.js';
import { adoptChild, type AfterHook } from '../helpers/child-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const bin = path.join(packageRoot, 'bin', 'spillway.js');
const fraudQuery = "SELECT * FROM transactions WHERE label = 'fraud' AND amount >= 200";

async function configFile(t: AfterHook): Promise<{ dir: string; file: string }> {
  const dir = await tempDir(t, 'spillway-connect-');
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, JSON.stringify({ sandbox: { root: 'sandbox' }, data: { dir: 'data' }, demo: { rows: 3000, seed: 4 }, log: { level: 'warn' } }));
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

test('docs/connect.md: the SDK client over Streamable HTTP queries a running spillway serve', async (t) => {
  const { file } = await configFile(t);
  const child = spawn(process.execPath, [bin, 'serve', '--config', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
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
