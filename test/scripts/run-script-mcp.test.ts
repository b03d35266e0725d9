import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFront } from '../../src/mcp/http-server.js';
import { tempHost } from '../helpers/temp-host.js';

test("over MCP, write_file and run_script work in the session's conversation and outputs come back as resource links", async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const client = new Client({ name: 'script-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => client.close());

  const tools = await client.listTools();
  const names = tools.tools.map((tool) => tool.name);
  assert.ok(names.includes('run_script') && names.includes('write_file'));
  assert.match(tools.tools.find((tool) => tool.name === 'run_script')?.description ?? '', /call_with_args_file/);

  const saved = await client.callTool({
    name: 'write_file',
    arguments: { path: 'scripts/report.js', content: "writeText('outputs/report.csv', 'a,b\\n1,2\\n');\nreturn args.n * 2;\n" },
  });
  assert.notEqual(saved.isError, true);
  const ran = await client.callTool({ name: 'run_script', arguments: { path: 'scripts/report.js', args: { n: 21 } } });
  assert.notEqual(ran.isError, true, JSON.stringify(ran));
  const content = ran.content as { type: string; text?: string; uri?: string }[];
  assert.match(content[0]?.text ?? '', /"result": ?42/);
  const link = content.find((block) => block.type === 'resource_link');
  assert.equal(link?.uri, 'spillway://sandbox/outputs/report.csv');
  const read = await client.readResource({ uri: link.uri as string });
  assert.equal((read.contents[0] as { text?: string }).text, 'a,b\n1,2\n');

  const failed = await client.callTool({ name: 'run_script', arguments: { code: "return readText('../other/x');" } });
  assert.equal(failed.isError, true);
});
