import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { errorCodes, retryableErrors, SpillwayError } from '../../src/errors.js';
import { createMcpServer, resourceNotFoundCode } from '../../src/mcp/mcp-server.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

const rowSchema = Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), amount: Type.Number(), active: Type.Boolean(), note: Type.String() }));

async function connect(t: TestContext, conversationId = 'structured-1') {
  const env = await tempHost();
  t.after(() => env.cleanup());
  await startUpstreams(env.host).settled();
  env.host.registerTool({
    name: 'rows',
    description: 'rows',
    inputSchema: { type: 'object' },
    outputSchema: rowSchema,
    handler: (args) => ({ value: makeRows(Number(args.n ?? 10)) }),
  });
  env.host.registerTool({
    name: 'fails',
    description: 'throws',
    inputSchema: { type: 'object' },
    outputSchema: Type.String(),
    handler: () => {
      throw new Error('backend said no');
    },
  });
  env.host.registerTool({
    name: 'bad_column',
    description: 'coded error',
    inputSchema: { type: 'object' },
    outputSchema: Type.String(),
    handler: () => {
      throw new SpillwayError('UNKNOWN_COLUMN', 'No column "x".', { column: 'x', columns: ['a'] });
    },
  });
  env.host.registerTool({
    name: 'remote__thing',
    description: 'an upstream tool',
    inputSchema: { type: 'object' },
    outputSchema: rowSchema,
    origin: { upstream: 'remote' },
    handler: () => ({ value: makeRows(2) }),
  });
  const open = async (id: string) => {
    const server = createMcpServer(env.host, { conversationId: id });
    const client = new Client({ name: 'test', version: '1' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    t.after(() => client.close());
    return client;
  };
  const client = await open(conversationId);
  const { tools } = await client.listTools();
  return { env, client, tools: new Map(tools.map((tool) => [tool.name, tool])), open };
}

/** Validates structuredContent with our own ajv against the schema the server declared in tools/list. */
function assertMatchesDeclared(tool: Tool | undefined, result: CallToolResult): Record<string, unknown> {
  assert.ok(tool?.outputSchema, `${tool?.name} declares an outputSchema`);
  assert.equal(result.isError, false, JSON.stringify(result.content));
  assert.ok(result.structuredContent, 'structuredContent is present');
  const validate = new Ajv({ allErrors: true, strict: false }).compile(tool.outputSchema);
  assert.ok(validate(result.structuredContent), JSON.stringify(validate.errors));
  return result.structuredContent;
}

test('every built-in tool declares an output schema; upstream tools keep their own shape', async (t) => {
  const { tools, env } = await connect(t);
  const local = env.host.listTools().filter((tool) => tool.origin === undefined || tool.origin === 'local');
  for (const tool of local) {
    const schema = tools.get(tool.name)?.outputSchema;
    assert.ok(schema, `${tool.name} has an outputSchema`);
    assert.equal(schema.type, 'object');
    assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), ['attachments', 'files', 'notes', 'result', 'screening', 'spill', 'truncated']);
  }
  assert.equal(tools.get('remote__thing')?.outputSchema, undefined);
});

test('a whole result comes back as structuredContent.result beside the text; a spilled one names its file', async (t) => {
  const { client, tools } = await connect(t);
  const small = (await client.callTool({ name: 'rows', arguments: { n: 3 } })) as CallToolResult;
  const smallContent = assertMatchesDeclared(tools.get('rows'), small);
  assert.deepEqual(smallContent.result, makeRows(3));
  assert.equal(smallContent.truncated, false);
  assert.deepEqual(smallContent.notes, []);

  const spilled = (await client.callTool({ name: 'rows', arguments: { n: 200 } })) as CallToolResult;
  const content = assertMatchesDeclared(tools.get('rows'), spilled);
  assert.deepEqual(content.result, makeRows(200));
  const spill = content.spill as { path: string; rows: number; format: string };
  assert.equal(spill.path, 'results/0001-rows.jsonl');
  assert.equal(spill.rows, 200);
  assert.deepEqual(spilled._meta?.['spillway/spill'], content.spill);
  assert.match((content.notes as string[])[0] ?? '', /^Saved to results\/0001-rows\.jsonl/);
  // The text the model reads is unchanged: the JSON, then the reference.
  assert.match((spilled.content[0] as { text: string }).text, /\n\n\[spillway\] Saved to results\/0001-rows\.jsonl/);
});

test('a result past the inline cap is truncated: no result field, the file and the "Showing" note instead', async (t) => {
  const { client, tools } = await connect(t);
  const big = (await client.callTool({ name: 'rows', arguments: { n: 10_000 } })) as CallToolResult;
  const content = assertMatchesDeclared(tools.get('rows'), big);
  assert.equal(content.truncated, true);
  assert.equal(content.result, undefined);
  assert.equal((content.spill as { rows: number }).rows, 10_000);
  const notes = content.notes as string[];
  assert.match(notes[0] ?? '', /^Showing [\d,]+ of 10,000 rows; the file holds all 10,000\.$/);
  assert.match(notes[1] ?? '', /^Profile of all 10,000 rows/);
  assert.match(notes[2] ?? '', /^Saved to results\//);
});

test('built-in tools: list_files, write_file, read_file, search_file and run_script match their declared schemas', async (t) => {
  const { client, tools } = await connect(t);
  await client.callTool({ name: 'rows', arguments: { n: 50 } });
  const written = (await client.callTool({ name: 'write_file', arguments: { path: 'args/a.json', content: '{"a":1}' } })) as CallToolResult;
  assert.deepEqual(assertMatchesDeclared(tools.get('write_file'), written).result, { path: 'args/a.json', bytes: 7 });
  const listed = (await client.callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
  const files = (assertMatchesDeclared(tools.get('list_files'), listed).result as { files: { path: string }[] }).files;
  assert.deepEqual(
    files.map((file) => file.path),
    ['results/0001-rows.jsonl', 'args/a.json'],
  );
  const read = (await client.callTool({ name: 'read_file', arguments: { path: 'results/0001-rows.jsonl', limit: 2 } })) as CallToolResult;
  assert.match(assertMatchesDeclared(tools.get('read_file'), read).result as string, /"item-1"/);
  const searched = (await client.callTool({ name: 'search_file', arguments: { path: 'results/0001-rows.jsonl', pattern: 'item-7' } })) as CallToolResult;
  assert.equal(typeof assertMatchesDeclared(tools.get('search_file'), searched).result, 'string');
  const script = (await client.callTool({ name: 'run_script', arguments: { code: 'return readRows("results/0001-rows.jsonl").length;' } })) as CallToolResult;
  assert.deepEqual(assertMatchesDeclared(tools.get('run_script'), script).result, { result: 50 });
  await client.callTool({ name: 'write_file', arguments: { path: 'args/write.json', content: '{"path":"scripts/b.txt","content":"?"}' } });
  const delegated = (await client.callTool({
    name: 'call_with_args_file',
    arguments: { tool: 'write_file', argsPath: 'args/write.json', overrides: { content: 'x' } },
  })) as CallToolResult;
  assert.deepEqual(assertMatchesDeclared(tools.get('call_with_args_file'), delegated).result, { path: 'scripts/b.txt', bytes: 1 });
});

test('export_table and draw_table results match their declared schemas, with the download card as a field', async (t) => {
  const { client, tools } = await connect(t);
  await client.callTool({ name: 'rows', arguments: { n: 40 } });
  const exported = (await client.callTool({
    name: 'export_table',
    arguments: { source: 'results/0001-rows.jsonl', format: 'csv', columns: ['id', { name: 'name', header: 'Name' }] },
  })) as CallToolResult;
  const content = assertMatchesDeclared(tools.get('export_table'), exported);
  assert.equal((content.result as { rows: number }).rows, 40);
  assert.equal((content.attachments as { path: string }[])[0]?.path, 'outputs/0001-rows.csv');
  const drawn = (await client.callTool({
    name: 'draw_table',
    arguments: { source: 'results/0001-rows.jsonl', range: { start: 0, count: 3 } },
  })) as CallToolResult;
  assert.match(assertMatchesDeclared(tools.get('draw_table'), drawn).result as string, /^\|/);
});

test('errors carry _meta["spillway/error"] = {code, details, retryable} and no structuredContent', async (t) => {
  const { client } = await connect(t);
  const errorOf = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    return result._meta?.['spillway/error'] as { code: string; details: Record<string, unknown>; retryable: boolean };
  };
  const traversal = await errorOf('read_file', { path: '../x' });
  assert.equal(traversal.code, 'PATH_TRAVERSAL');
  assert.equal(traversal.retryable, false);
  assert.equal(typeof traversal.details, 'object');
  const unknown = await errorOf('read_fil', {});
  assert.deepEqual(unknown, { code: 'TOOL_NOT_FOUND', details: { tool: 'read_fil', similar: ['read_file'] }, retryable: false });
  const invalid = await errorOf('read_file', { path: 3 });
  assert.equal(invalid.code, 'INVALID_ARGUMENTS');
  assert.ok(Array.isArray(invalid.details.errors));
  assert.deepEqual(await errorOf('bad_column', {}), { code: 'UNKNOWN_COLUMN', details: { column: 'x', columns: ['a'] }, retryable: false });
  assert.deepEqual(await errorOf('fails', {}), { code: 'TOOL_FAILED', details: {}, retryable: true });
});

test('the retryable table covers every code, and says yes only for transient failures', () => {
  assert.deepEqual(Object.keys(retryableErrors).sort(), Object.keys(errorCodes).sort());
  for (const code of ['WORKER_FAILED', 'TOOL_TIMEOUT', 'UPSTREAM_UNAVAILABLE', 'SCRIPT_BUSY', 'SQL_TIMEOUT'] as const)
    assert.equal(retryableErrors[code], true, code);
  for (const code of ['UNKNOWN_COLUMN', 'INVALID_ARGUMENTS', 'PERMISSION_DENIED', 'PATH_TRAVERSAL', 'SQL_READ_ONLY'] as const)
    assert.equal(retryableErrors[code], false, code);
});

test('resources/read of a missing, refused or foreign file answers -32002 (resource not found)', async (t) => {
  const { client, env, open } = await connect(t, 'owner');
  const sandbox = env.host.sandbox.conversation('owner');
  await sandbox.ensure();
  await writeFile(path.join(sandbox.dir, 'outputs', 'mine.csv'), 'a\n1\n');
  assert.equal(((await client.readResource({ uri: 'spillway://sandbox/outputs/mine.csv' })).contents[0] as { text: string }).text, 'a\n1\n');

  const codeOf = async (reader: Client, uri: string) => {
    const error = await reader.readResource({ uri }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof McpError, `${uri} is refused with an McpError`);
    return { code: error.code, data: error.data as { uri: string; code: string } };
  };
  const missing = await codeOf(client, 'spillway://sandbox/outputs/nothing.csv');
  assert.deepEqual(missing, { code: resourceNotFoundCode, data: { uri: 'spillway://sandbox/outputs/nothing.csv', code: 'PATH_NOT_FOUND' } });
  assert.equal((await codeOf(client, 'spillway://sandbox/results/0001-rows.jsonl')).code, -32002);
  assert.equal((await codeOf(client, 'spillway://sandbox/outputs/..%2F..%2Fother%2Foutputs%2Fx.csv')).code, -32002);
  assert.equal((await codeOf(client, 'https://example.com/x')).code, -32002);
  const stranger = await open('stranger');
  assert.equal((await codeOf(stranger, 'spillway://sandbox/outputs/mine.csv')).code, -32002);
});

test('query_sql and list_upstreams results match their declared schemas', async (t) => {
  const { client, tools } = await connect(t);
  const queried = (await client.callTool({
    name: 'query_sql',
    arguments: { sql: "SELECT id, amount, label FROM transactions WHERE label = 'fraud' ORDER BY id LIMIT 5", label: 'five' },
  })) as CallToolResult;
  const content = assertMatchesDeclared(tools.get('query_sql'), queried).result as { label: string; returned: number; rows: unknown[] };
  assert.equal(content.label, 'five');
  assert.equal(content.returned, 5);
  const empty = (await client.callTool({ name: 'query_sql', arguments: { sql: 'SELECT id FROM transactions WHERE 1 = 0' } })) as CallToolResult;
  assert.deepEqual((assertMatchesDeclared(tools.get('query_sql'), empty).result as { columns: string[] }).columns, ['id']);
  const upstreams = (await client.callTool({ name: 'list_upstreams', arguments: {} })) as CallToolResult;
  assert.deepEqual(assertMatchesDeclared(tools.get('list_upstreams'), upstreams).result, { upstreams: [] });
});

test('the analysis tools (inspect_file, query_files, build_chart, parquet export) match their declared schemas', async (t) => {
  const { client, tools } = await connect(t);
  await client.callTool({ name: 'rows', arguments: { n: 60 } });
  const source = 'results/0001-rows.jsonl';
  const inspected = (await client.callTool({ name: 'inspect_file', arguments: { path: source } })) as CallToolResult;
  assert.equal((assertMatchesDeclared(tools.get('inspect_file'), inspected).result as { rows: number }).rows, 60);
  const queried = (await client.callTool({
    name: 'query_files',
    arguments: { sql: `SELECT active, count(*) AS n FROM '${source}' GROUP BY 1 ORDER BY 1` },
  })) as CallToolResult;
  assert.equal((assertMatchesDeclared(tools.get('query_files'), queried).result as { returned: number }).returned, 2);
  const chart = (await client.callTool({
    name: 'build_chart',
    arguments: { source, spec: { mark: 'bar', encoding: { x: { field: 'active', type: 'nominal' }, y: { aggregate: 'count', type: 'quantitative' } } } },
  })) as CallToolResult;
  const drawn = assertMatchesDeclared(tools.get('build_chart'), chart);
  assert.equal((drawn.result as { rows: number }).rows, 60);
  assert.equal((drawn.attachments as unknown[]).length, 2);
  const parquet = (await client.callTool({ name: 'export_table', arguments: { source, format: 'parquet' } })) as CallToolResult;
  assert.equal((assertMatchesDeclared(tools.get('export_table'), parquet).result as { format: string }).format, 'parquet');
});
