import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { watchOutputs } from '../../src/watch/outputs-watcher.js';
import { tempHost } from '../helpers/temp-host.js';

const run = promisify(execFile);

test('a file another process writes into outputs/ reaches an MCP client as resources/list_changed and in resources/list', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const watcher = watchOutputs(env.host, { settleMs: 100 });
  t.after(() => watcher.close());
  await watcher.ready;
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());

  const client = new Client({ name: 'watcher-test', version: '1.0.0' });
  let notified!: () => void;
  const listChanged = new Promise<void>((resolve) => (notified = resolve));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => notified());
  const transport = new StreamableHTTPClientTransport(new URL(front.url));
  await client.connect(transport);
  t.after(() => client.close());
  const conversationId = transport.sessionId;
  assert.ok(conversationId !== undefined);
  assert.deepEqual((await client.listResources()).resources, []);

  // Another process (an operator's script) writes the file; the host is not involved.
  const file = path.join(env.host.sandbox.conversation(conversationId).dir, 'outputs', 'quarterly report.csv');
  await run(process.execPath, [
    '-e',
    `const fs = require('node:fs'); fs.mkdirSync(require('node:path').dirname(process.argv[1]), { recursive: true }); fs.writeFileSync(process.argv[1], 'region,total\\nnorth,10\\n');`,
    file,
  ]);
  await listChanged;
  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((resource) => ({ uri: resource.uri, name: resource.name, mimeType: resource.mimeType })),
    [{ uri: 'spillway://sandbox/outputs/quarterly%20report.csv', name: 'quarterly report.csv', mimeType: 'text/csv' }],
  );
  const read = await client.readResource({ uri: resources[0]?.uri ?? '' });
  assert.equal((read.contents[0] as { text?: string }).text, 'region,total\nnorth,10\n');
});

test('only regular files under outputs/ are announced: not symlinks, temporary files or other folders', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const decided = decisions();
  const watcher = watchOutputs(env.host, { settleMs: 50, onDecided: decided.record });
  t.after(() => watcher.close());
  await env.host.sandbox.conversation('c1').ensure();
  await watcher.ready;
  const announced: string[] = [];
  env.host.on('attachment', (event) => announced.push(`${event.conversationId}/${event.attachment.path}`));

  const outputs = path.join(env.host.sandbox.conversation('c1').dir, 'outputs');
  // Temporary files and other folders are never watched (no event to wait for); the symlink and
  // the nested file are, and the test waits until the watcher has decided on each.
  await writeFile(path.join(outputs, '.report.csv.123.abcdef.tmp'), 'partial');
  await writeFile(path.join(env.host.sandbox.conversation('c1').dir, 'results', '0001-q.jsonl'), '{}\n');
  await symlink('/etc/hostname', path.join(outputs, 'link.txt'));
  await mkdir(path.join(outputs, 'nested'));
  await writeFile(path.join(outputs, 'nested', 'deep.txt'), 'deep');
  assert.equal(await decided.next(path.join(outputs, 'link.txt')), false);
  assert.equal(await decided.next(path.join(outputs, 'nested', 'deep.txt')), true);
  await writeFile(path.join(outputs, 'sentinel.txt'), 'last');
  assert.equal(await decided.next(path.join(outputs, 'sentinel.txt')), true);
  assert.deepEqual(announced.sort(), ['c1/outputs/nested/deep.txt', 'c1/outputs/sentinel.txt']);
});

/** The watcher's decisions, awaitable per file: next(file) resolves with the first decision on it not yet taken. */
function decisions(): { record: (file: string, announced: boolean) => void; next: (file: string) => Promise<boolean> } {
  const seen = new Map<string, boolean[]>();
  const waiting = new Map<string, ((announced: boolean) => void)[]>();
  return {
    record(file, announced) {
      const waiter = waiting.get(file)?.shift();
      if (waiter !== undefined) waiter(announced);
      else seen.set(file, [...(seen.get(file) ?? []), announced]);
    },
    next(file) {
      const already = seen.get(file)?.shift();
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolve) => waiting.set(file, [...(waiting.get(file) ?? []), resolve]));
    },
  };
}

test("a file the host already announced (a tool's own export) is not announced twice", async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const decided = decisions();
  const watcher = watchOutputs(env.host, { settleMs: 50, onDecided: decided.record });
  t.after(() => watcher.close());
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  await watcher.ready;
  const { describeAttachment } = await import('../../src/outputs/attachments.js');
  // The host announces an export (as execute does for a tool's attachments), then the file lands.
  const exportPath = path.join(sandbox.folderPath('outputs'), 'export.csv');
  env.host.emit('attachment', { conversationId: 'c1', principal: 'local', attachment: describeAttachment(sandbox, exportPath, 4) });
  const announced: string[] = [];
  env.host.on('attachment', (event) => announced.push(event.attachment.path));
  await writeFile(exportPath, 'a\n1\n');
  assert.equal(await decided.next(exportPath), false, 'the export is not announced again');
  await writeFile(path.join(sandbox.folderPath('outputs'), 'after.txt'), 'x');
  assert.equal(await decided.next(path.join(sandbox.folderPath('outputs'), 'after.txt')), true);
  assert.deepEqual(announced, ['outputs/after.txt']);
  // Rewritten with another size, it is announced again.
  await writeFile(exportPath, 'a\n1\n2\n');
  assert.equal(await decided.next(exportPath), true);
  assert.deepEqual(announced, ['outputs/after.txt', 'outputs/export.csv']);
});
