import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import XLSX from 'xlsx';
import { makeRows } from '../helpers/temp-host.js';
import { filesHost } from './helpers.js';
import { connectHttpClient } from '../helpers/http-client.js';

test('over MCP: an export comes back as a resource_link that resources/read returns byte for byte, only in its own conversation', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rows = makeRows(200);
  env.host.registerTool({ name: 'list_items', description: 'items', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const { client, sessionId, front } = await connectHttpClient(t, env.host);

  const tools = await client.listTools();
  for (const name of ['export_table', 'build_document', 'attach_file', 'draw_table'])
    assert.ok(
      tools.tools.some((tool) => tool.name === name),
      name,
    );

  const listed = await client.callTool({ name: 'list_items', arguments: {} });
  const spill = (listed._meta as Record<string, { path: string; rows: number }>)['spillway/spill'];
  assert.ok(spill);
  assert.equal(spill.rows, 200);

  const exported = await client.callTool({
    name: 'export_table',
    arguments: { source: spill.path, format: 'xlsx', sort: { column: 'amount', direction: 'desc' } },
  });
  assert.equal(exported.isError, false);
  const content = exported.content as { type: string; uri?: string; mimeType?: string; name?: string }[];
  const link = content.find((block) => block.type === 'resource_link');
  assert.ok(link?.uri, 'the result carries a resource_link');
  assert.equal(link.mimeType, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');

  const read = await client.readResource({ uri: link.uri });
  const blob = (read.contents[0] as { blob?: string }).blob;
  assert.ok(blob);
  const onDisk = await readFile(path.join(env.host.sandbox.conversation(sessionId).dir, 'outputs', link.name as string));
  assert.deepEqual(Buffer.from(blob, 'base64'), onDisk);
  const workbook = XLSX.read(Buffer.from(blob, 'base64'), { type: 'buffer' });
  const data = XLSX.utils.sheet_to_json<Record<string, unknown>>(workbook.Sheets.Data as XLSX.WorkSheet);
  assert.equal(data.length, 200);
  assert.equal(data[0]?.amount, Math.max(...rows.map((row) => row.amount as number)));

  const resources = await client.listResources();
  assert.ok(resources.resources.some((resource) => resource.uri === link.uri));

  // Another MCP session is another conversation: the same URI names nothing there.
  const stranger = new Client({ name: 'other', version: '1.0.0' });
  await stranger.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => stranger.close());
  await assert.rejects(stranger.readResource({ uri: link.uri }), /No file at/);
});
