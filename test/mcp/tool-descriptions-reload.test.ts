import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig } from '../../src/config/load-config.js';
import { silentLogger } from '../../src/log/logger.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { createHost } from '../../src/runtime/create-host.js';
import { watchConfig, type ConfigWatcherEvents } from '../../src/watch/config-watcher.js';

const base = { sandbox: { root: 'sandbox' }, data: { dir: 'data' }, log: { level: 'silent' } };
const defaultScript = {
  timeoutMs: 10000,
  memoryBytes: 134217728,
  stackBytes: 262144,
  maxReadBytes: 268435456,
  maxWriteBytes: 67108864,
  maxOutputChars: 1000000,
};

test('a config reload with new script limits sends tools/list_changed, and run_script is then listed with the limits it enforces', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-reload-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'spillway.json');
  await writeFile(file, JSON.stringify(base));
  const host = await createHost({ config: loadConfig({ file, env: {} }), logger: silentLogger() });
  t.after(() => host.close());
  const watcher = watchConfig(host, { file, debounceMs: 50 });
  t.after(() => watcher.close());
  await watcher.ready;

  const server = createMcpServer(host, { conversationId: 'reload-1' });
  const client = new Client({ name: 'test', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(() => client.close());
  const runScript = async () => (await client.listTools()).tools.find((tool) => tool.name === 'run_script')?.description ?? '';
  assert.match(await runScript(), /Limits per run: 10,000 ms, 128 MiB memory/);

  const listChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  const applied = once(watcher, 'applied') as Promise<ConfigWatcherEvents['applied']>;
  await writeFile(file, JSON.stringify({ ...base, script: { ...defaultScript, timeoutMs: 2500, maxOutputChars: 777 } }));
  const [event] = await applied;
  assert.deepEqual(event.changed, ['script']);
  await listChanged;
  const description = await runScript();
  assert.match(description, /Limits per run: 2,500 ms, 128 MiB memory, .* 777 characters of output\./);
  assert.doesNotMatch(description, /10,000 ms/);

  // What is advertised is what is enforced: a script longer than the new limit is stopped at it.
  const result = (await client.callTool({ name: 'run_script', arguments: { code: 'while (true) {}' } })) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match((result.content[0] as { text: string }).text, /script\.timeoutMs limit of 2,500 ms/);
});
