// resources/read of outputs/ files is admitted like tool work (resources.maxConcurrentReads):
// a client sending many reads at once gets BUSY past the caps instead of holding every other
// client up while each file is read and encoded. Real SDK client over Streamable HTTP.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { attachmentUri } from '../../src/outputs/attachments.js';
import { tempHost } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';

test('resources/read waits past resources.maxConcurrentReads, is refused BUSY past four times as many waiting, and the waiting reads are served once a slot frees', async (t) => {
  const env = await tempHost({ resources: { maxReadBytes: 16_777_216, maxConcurrentReads: 1 } });
  t.after(() => env.cleanup());
  const sandbox = env.host.sandbox.conversation('c1');
  await sandbox.ensure();
  await writeFile(path.join(sandbox.folderPath('outputs'), 'report.csv'), 'a,b\n1,2\n');
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const client = new Client({ name: 'reader', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { 'mcp-conversation-id': 'c1' } } }));
  t.after(() => client.close());
  const uri = attachmentUri('outputs/report.csv');

  // The one running slot is taken (the same gate, by its name), so reads line up behind it.
  const gate = env.host.queues.gate({ name: 'resources', noun: 'resource read', limits: () => ({ running: 1, waiting: 4, waitMs: 60_000 }) });
  const release = await gate.admit();
  const waiting = Array.from({ length: 4 }, () => client.readResource({ uri }));
  await waitFor(() => env.host.queues.report()['resources']?.waiting === 4, 'four reads waiting');
  await assert.rejects(client.readResource({ uri }), (error: Error) => /BUSY|busy/.test(error.message), 'the fifth waiting read is refused at once');
  release();
  for (const read of await Promise.all(waiting)) assert.equal((read.contents[0] as { text?: string }).text, 'a,b\n1,2\n');
  assert.equal(env.host.queues.report()['resources']?.refused.full, 1);
});
