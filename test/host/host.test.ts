import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { makeRows, tempHost } from '../helpers/temp-host.js';

const conversationId = 'c1';

function rowsTool(rows: unknown) {
  return { name: 'rows', description: 'rows', inputSchema: { type: 'object' as const }, handler: () => ({ value: rows }) };
}

// Execution records read back as loose JSON for assertions on nested fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseRecord = Record<string, any>;

test('an unknown tool gets TOOL_NOT_FOUND listing close names, and the host keeps serving', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const result = await env.host.execute({ name: 'read_fiel', arguments: {} }, { conversationId });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'TOOL_NOT_FOUND');
  assert.deepEqual((result.error?.details as { similar: string[] }).similar.includes('read_file'), true);
  assert.match(result.text, /Did you mean: .*read_file/);
  const next = await env.host.execute({ name: 'list_files', arguments: {} }, { conversationId });
  assert.equal(next.isError, false);
});

test('arguments that fail the schema are refused with every violation by JSON path', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  let ran = false;
  env.host.registerTool({
    name: 'export',
    description: 'x',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'format'],
      properties: {
        source: { type: 'string' },
        format: { enum: ['csv', 'xlsx'] },
        sort: {
          type: 'array',
          items: { type: 'object', required: ['column'], properties: { column: { type: 'string' }, direction: { enum: ['asc', 'desc'] } } },
        },
      },
    },
    handler: () => {
      ran = true;
      return { value: 'ran' };
    },
  });
  const result = await env.host.execute(
    { name: 'export', arguments: { format: 'pdf', sort: [{ column: 3, direction: 'up' }, {}], extra: 1 } },
    { conversationId },
  );
  assert.equal(ran, false);
  assert.equal(result.error?.code, 'INVALID_ARGUMENTS');
  const errors = (result.error?.details as { errors: string[] }).errors;
  for (const expected of [
    /^\$: missing required property "source"/,
    /^\$: unknown property "extra"; allowed: source, format, sort/,
    /^\$\.format: must be one of "csv", "xlsx"/,
    /^\$\.sort\[0\]\.column: must be string/,
    /^\$\.sort\[0\]\.direction: must be one of/,
    /^\$\.sort\[1\]: missing required property "column"/,
  ]) {
    assert.ok(
      errors.some((line) => expected.test(line)),
      `${expected} in ${errors.join(' | ')}`,
    );
    assert.match(result.text, expected.source.startsWith('^') ? new RegExp(expected.source.slice(1)) : expected);
  }
});

test('a tool that throws becomes an error result; the next call still works', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool({
    name: 'boom',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('disk on fire');
    },
  });
  env.host.registerTool({
    name: 'boom-async',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: async () => {
      throw 'a string';
    },
  });
  const result = await env.host.execute({ name: 'boom', arguments: {} }, { conversationId });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'TOOL_FAILED');
  assert.match(result.text, /disk on fire/);
  assert.equal(result.spill, undefined);
  const other = await env.host.execute({ name: 'boom-async', arguments: {} }, { conversationId });
  assert.equal(other.error?.code, 'TOOL_FAILED');
  assert.equal((await env.host.execute({ name: 'list_files', arguments: {} }, { conversationId })).isError, false);
});

test('a 50 MB error is spilled to errors/ whole, and the model gets its head and its tail', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const head = 'Traceback (most recent call last):\n';
  const tail = '\nRuntimeError: the exception line at the very end';
  const middle = '  File "worker.py", line 12, in run\n'.repeat(Math.ceil((50 * 1024 * 1024) / 36));
  env.host.registerTool({
    name: 'huge_error',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error(head + middle + tail);
    },
  });
  const result = await env.host.execute({ name: 'huge_error', arguments: {} }, { conversationId });
  assert.equal(result.isError, true);
  assert.equal(result.spill?.path.startsWith('errors/'), true);
  assert.equal(result.spill?.format, 'text');
  assert.ok(result.text.startsWith(head));
  assert.ok(result.text.includes('RuntimeError: the exception line at the very end'));
  assert.ok(result.text.length < 10_000, `model text is short (${result.text.length})`);
  assert.match(result.text, new RegExp(`the full text is in ${result.spill!.path}`));
  const written = await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path), 'utf8');
  assert.equal(written, head + middle + tail);
  assert.equal(result.spill?.bytes, Buffer.byteLength(written));
});

test('invalid JSON inside an MCP text block stays text and spills as .txt', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const body = `{"rows": [${'{"a":1},'.repeat(300)}`;
  env.host.registerTool({
    name: 'upstream',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({ mcp: { content: [{ type: 'text', text: body }] } }),
  });
  const result = await env.host.execute({ name: 'upstream', arguments: {} }, { conversationId });
  assert.equal(result.isError, false);
  assert.equal(result.spill?.format, 'text');
  assert.match(result.spill!.path, /^results\/0001-upstream\.txt$/);
  assert.equal(await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path), 'utf8'), body);
});

test('an MCP text block holding JSON is unwrapped: a table becomes JSONL, never one escaped line', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(40);
  env.host.registerTool({
    name: 'upstream',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({ mcp: { content: [{ type: 'text', text: JSON.stringify(rows) }] } }),
  });
  const result = await env.host.execute({ name: 'upstream', arguments: {} }, { conversationId });
  const lines = (await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path), 'utf8')).trimEnd().split('\n');
  assert.equal(lines.length, 40);
  assert.deepEqual(
    lines.map((line) => JSON.parse(line)),
    rows,
  );
});

test('an upstream error result (isError) is an error and spills to errors/', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const message = `failure ${'x'.repeat(5000)} END`;
  env.host.registerTool({
    name: 'upstream',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({ mcp: { content: [{ type: 'text', text: message }], isError: true } }),
  });
  const result = await env.host.execute({ name: 'upstream', arguments: {} }, { conversationId });
  assert.equal(result.isError, true);
  assert.equal(result.error?.code, 'UPSTREAM_ERROR');
  assert.match(result.spill!.path, /^errors\//);
  assert.ok(result.text.includes(' END'));
});

test('an empty result says it is empty and writes nothing', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'nothing', description: 'x', inputSchema: { type: 'object' }, handler: () => ({}) });
  env.host.registerTool({ name: 'nothing_mcp', description: 'x', inputSchema: { type: 'object' }, handler: () => ({ mcp: { content: [] } }) });
  for (const name of ['nothing', 'nothing_mcp']) {
    const result = await env.host.execute({ name, arguments: {} }, { conversationId });
    assert.equal(result.isError, false);
    assert.equal(result.spill, undefined);
    assert.match(result.text, /empty result/i);
  }
  assert.deepEqual(await readdir(path.join(env.host.sandbox.conversation(conversationId).dir, 'results')).catch(() => []), []);
});

test('a lone surrogate and a NUL character: the call succeeds, the file is valid UTF-8 and says what was replaced', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const text = `start\0middle\ud800end ${'y'.repeat(2000)}`;
  env.host.registerTool({ name: 'odd_text', description: 'x', inputSchema: { type: 'object' }, handler: () => ({ value: text }) });
  env.host.registerTool({
    name: 'odd_rows',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({ value: makeRows(30).map((row, i) => ({ ...row, odd: i === 3 ? 'a\0b\udc00c' : 'ok' })) }),
  });
  const textResult = await env.host.execute({ name: 'odd_text', arguments: {} }, { conversationId });
  assert.equal(textResult.isError, false);
  assert.equal(textResult.spill?.replacedInvalidUnicode, true);
  const bytes = await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, textResult.spill!.path));
  assert.equal(bytes.toString('utf8'), text.replace('\ud800', '\ufffd'));
  assert.equal(textResult.spill?.bytes, bytes.length);

  const rowsResult = await env.host.execute({ name: 'odd_rows', arguments: {} }, { conversationId });
  assert.equal(rowsResult.spill?.format, 'jsonl');
  const lines = (await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, rowsResult.spill!.path), 'utf8')).trimEnd().split('\n');
  // JSON escapes both, so the table round-trips exactly.
  assert.equal((JSON.parse(lines[3]!) as { odd: string }).odd, 'a\0b\udc00c');
  assert.equal(rowsResult.spill?.replacedInvalidUnicode, undefined);
});

test('thresholds: 1,000 characters stay inline, 1,001 spill; per-tool patterns override threshold, inline cap and spill', async (t) => {
  const env = await tempHost({
    spill: { thresholdChars: 1000, tools: { 'small_*': { thresholdChars: 10 }, small_inline: { spill: false }, 'tight_*': { inlineMaxTokens: 100 } } },
  });
  t.after(() => env.cleanup());
  const textTool = (name: string, length: number) =>
    env.host.registerTool({ name, description: 'x', inputSchema: { type: 'object' }, handler: () => ({ value: 'x'.repeat(length) }) });
  textTool('exact', 1000);
  textTool('over', 1001);
  textTool('small_one', 11);
  textTool('small_inline', 5000);
  env.host.registerTool({ ...rowsTool(makeRows(200)), name: 'tight_rows' });
  assert.equal((await env.host.execute({ name: 'exact', arguments: {} }, { conversationId })).spill, undefined);
  assert.equal((await env.host.execute({ name: 'over', arguments: {} }, { conversationId })).spill?.format, 'text');
  assert.equal((await env.host.execute({ name: 'small_one', arguments: {} }, { conversationId })).spill?.bytes, 11);
  const inline = await env.host.execute({ name: 'small_inline', arguments: {} }, { conversationId });
  assert.equal(inline.spill, undefined);
  assert.equal(inline.text, 'x'.repeat(5000));
  const tight = await env.host.execute({ name: 'tight_rows', arguments: {} }, { conversationId });
  assert.equal(tight.truncated, true);
  assert.match(tight.text, /Showing \d+ of 200 rows; the file holds all 200/);
  assert.deepEqual(env.host.spillSettings('small_inline').spill, false);
  assert.deepEqual(env.host.spillSettings('small_x').thresholdChars, 10);
  assert.deepEqual(env.host.spillSettings('tight_x').inlineMaxTokens, 100);
});

test('a table spills to JSONL with rows written, columns in first-seen order and a type per column, plus a sidecar', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = [
    { id: 1, name: 'a' },
    { id: 2, extra: null, name: 'b', score: 1 },
    ...makeRows(60).map((row) => ({ id: row.id, name: row.name, score: 1.5, extra: true })),
  ];
  env.host.registerTool(rowsTool(rows));
  const result = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId });
  assert.equal(result.spill?.rows, 62);
  assert.deepEqual(result.spill?.columns, ['id', 'name', 'extra', 'score']);
  assert.deepEqual(result.spill?.columnTypes, { id: 'integer', name: 'string', extra: 'boolean', score: 'number' });
  const file = path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path);
  const meta = JSON.parse(await readFile(`${file}.meta.json`, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(meta, JSON.parse(JSON.stringify(result.spill)));
  assert.equal(meta.tool, 'rows');
  assert.equal(meta.callId, result.callId);
  assert.equal(Date.parse(meta.expiresAt as string) - Date.parse(meta.createdAt as string), 7 * 86_400_000);
  assert.equal((await readFile(file)).length, result.spill?.bytes);
  assert.match(result.text, /62 rows × 4 columns/);
});

test('a table inside an object keeps the other members as its envelope; other JSON is pretty-printed', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(30);
  env.host.registerTool({ ...rowsTool({ total: 30, next: null, items: rows }), name: 'wrapped' });
  env.host.registerTool({ ...rowsTool({ config: { deep: Array.from({ length: 500 }, (_, i) => i) }, names: ['a'] }), name: 'nested' });
  const wrapped = await env.host.execute({ name: 'wrapped', arguments: {} }, { conversationId });
  assert.deepEqual(wrapped.spill?.envelope, { rowsKey: 'items', fields: { total: 30, next: null } });
  assert.equal(wrapped.spill?.rows, 30);
  const nested = await env.host.execute({ name: 'nested', arguments: {} }, { conversationId });
  assert.equal(nested.spill?.format, 'json');
  const written = await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, nested.spill!.path), 'utf8');
  assert.equal(written, JSON.stringify({ config: { deep: Array.from({ length: 500 }, (_, i) => i) }, names: ['a'] }, null, 2));
});

test('above inline.maxTokens the model gets a whole-record prefix that parses and says how much it shows', async (t) => {
  const env = await tempHost({ inline: { maxTokens: 2000, bytesPerToken: 3 } });
  t.after(() => env.cleanup());
  const rows = makeRows(321);
  env.host.registerTool(rowsTool(rows));
  const result = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId });
  assert.equal(result.truncated, true);
  const match = /\n\[spillway\] Showing (\d+) of 321 rows; the file holds all 321\./.exec(result.text);
  assert.ok(match, result.text.slice(-400));
  const shown = Number(match[1]);
  const prefix = result.text.slice(0, match.index);
  const parsed = JSON.parse(prefix) as unknown[];
  assert.equal(parsed.length, shown);
  assert.deepEqual(parsed, rows.slice(0, shown));
  assert.ok(Buffer.byteLength(prefix) <= 6000);
  assert.equal(result.value, undefined);
});

test('binary blocks (an image) become their own files', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const png = Buffer.from('89504e470d0a1a0a0000', 'hex');
  env.host.registerTool({
    name: 'chart',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({
      mcp: {
        content: [
          { type: 'text', text: 'a chart' },
          { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        ],
      },
    }),
  });
  const result = await env.host.execute({ name: 'chart', arguments: {} }, { conversationId });
  assert.equal(result.files.length, 1);
  assert.match(result.files[0]!.path, /^results\/0001-chart\.png$/);
  assert.deepEqual(await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.files[0]!.path)), png);
});

test('the execution record holds one JSONL line per call: arguments as called and as executed, timings, outcome, spill path', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool(rowsTool(makeRows(50)));
  env.host.registerTool({
    name: 'delegate',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: (args, context) => context.invoke('rows', { expanded: true, big: args.big }, { argsPath: 'args/rows.json' }),
  });
  await env.host.execute({ name: 'rows', arguments: { q: 1 }, id: 'call-1' }, { conversationId, caller: 'tester' });
  await env.host.execute({ name: 'delegate', arguments: { short: true, big: 'z'.repeat(100_000) }, id: 'call-2' }, { conversationId });
  await env.host.execute({ name: 'missing', arguments: {}, id: 'call-3' }, { conversationId });
  await env.host.close();
  const lines = (await readFile(path.join(env.config.data.dir, 'records.jsonl'), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as LooseRecord);
  assert.equal(lines.length, 3);
  const [first, second, third] = lines;
  assert.equal(first!.callId, 'call-1');
  assert.equal(first!.conversationId, conversationId);
  assert.equal(first!.caller, 'tester');
  assert.deepEqual(first!.arguments, { q: 1 });
  assert.equal(first!.outcome, 'ok');
  assert.equal(first!.spillPath, 'results/0001-rows.jsonl');
  assert.equal(typeof first!.durationMs, 'number');
  assert.ok(!Number.isNaN(Date.parse(first!.startedAt)));
  assert.equal(second!.tool, 'delegate');
  assert.equal(second!.arguments.$capped, true, 'large arguments are capped with a hash');
  assert.match(second!.arguments.sha256, /^[0-9a-f]{64}$/);
  assert.equal(second!.executed.tool, 'rows');
  assert.equal(second!.executed.argsPath, 'args/rows.json');
  assert.equal(second!.executed.arguments.$capped, true);
  assert.equal(second!.spillPath, 'results/0002-rows.jsonl');
  assert.equal(third!.outcome, 'error');
  assert.equal(third!.errorCode, 'TOOL_NOT_FOUND');
});

test('a table that arrives as JSON text (compact, spaced or pretty-printed) is written one row a line, parsing back to the rows', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(30).map((row, i) => ({ ...row, text: i === 2 ? 'line\nbreak "quoted" ]}' : 'é ✓ 𝄞' }));
  const sources = [
    JSON.stringify(rows),
    JSON.stringify(rows, null, 2),
    JSON.stringify({ total: 30, rows }).replace(/":/g, '": '),
    JSON.stringify({ total: 30, rows }, null, '\t'),
  ];
  for (const [index, source] of sources.entries()) {
    env.host.registerTool({
      name: `source${index}`,
      description: 'x',
      inputSchema: { type: 'object' },
      handler: () => ({ mcp: { content: [{ type: 'text', text: source }] } }),
    });
    const result = await env.host.execute({ name: `source${index}`, arguments: {} }, { conversationId });
    const written = await readFile(path.join(env.host.sandbox.conversation(conversationId).dir, result.spill!.path), 'utf8');
    const lines = written.split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, 30, `source ${index}`);
    assert.deepEqual(
      lines.map((line) => JSON.parse(line)),
      rows,
    );
    assert.equal(result.spill?.bytes, Buffer.byteLength(written));
  }
});

test('a results/ folder removed while the host runs (the sweep removes empty folders) is made again by the next spill', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool(rowsTool(makeRows(40)));
  assert.ok((await env.host.execute({ name: 'rows', arguments: {} }, { conversationId })).spill);
  const { rm } = await import('node:fs/promises');
  await rm(path.join(env.host.sandbox.conversation(conversationId).dir, 'results'), { recursive: true });
  const again = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId });
  assert.equal(again.spill?.path, 'results/0002-rows.jsonl');
  await rm(path.join(env.host.sandbox.conversation(conversationId).dir), { recursive: true });
  assert.equal((await env.host.execute({ name: 'rows', arguments: {} }, { conversationId })).spill?.path, 'results/0003-rows.jsonl');
});
