import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { jsonSchema, tool } from 'ai';
import { spillwayContextGuard, spillwayTools, withSpill, type SpillwayToolOutput } from '../../src/ai-sdk/index.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

const callOptions = (toolCallId: string) => ({ toolCallId, messages: [] });

async function run(wrapped: { execute?: unknown; toModelOutput?: unknown }, input: unknown, toolCallId: string) {
  const execute = wrapped.execute as (input: unknown, options: unknown) => Promise<SpillwayToolOutput>;
  const output = await execute(input, callOptions(toolCallId));
  const toModel = wrapped.toModelOutput as (options: { toolCallId: string; input: unknown; output: unknown }) => { type: string; value: string };
  return { output, model: toModel({ toolCallId, input, output }) };
}

test('withSpill: a large result is written to the sandbox and the model reads the inline form and the reference', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(300);
  const search = tool({
    description: 'search',
    inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
    execute: async () => rows,
  });
  const wrapped = withSpill(search, env.host, { conversationId: 'ws-1', toolName: 'crm_search' });
  const { output, model } = await run(wrapped, { q: 'x' }, 'c-1');
  assert.equal(output.isError, false);
  assert.deepEqual(output.result, rows);
  assert.equal(output.spill?.path, 'results/0001-crm_search.jsonl');
  assert.equal(model.type, 'text');
  assert.match(model.value, /\n\n\[spillway\] Saved to results\/0001-crm_search\.jsonl \(JSONL table, 300 rows/);
  const file = await readFile(path.join(env.host.sandbox.conversation('ws-1').dir, output.spill?.path ?? ''), 'utf8');
  assert.equal(file.trim().split('\n').length, 300);
  // A small result stays inline, without a file.
  const small = withSpill(
    tool({ description: 'ping', inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }), execute: async () => ({ ok: true }) }),
    env.host,
    { conversationId: 'ws-1', toolName: 'ping' },
  );
  const pong = await run(small, {}, 'c-2');
  assert.equal(pong.model.value, '{"ok":true}');
  assert.equal(pong.output.spill, undefined);
});

test('withSpill: a tool that throws has its full error (message and stack) spilled; the model reads head, tail and the path', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const failing = tool<Record<string, unknown>, string>({
    description: 'fails',
    inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
    execute: async (): Promise<string> => {
      throw new Error(`upstream exploded: ${'detail '.repeat(400)}END-OF-MESSAGE`, { cause: new Error('socket hang up') });
    },
  });
  const wrapped = withSpill(failing, env.host, { conversationId: 'ws-2', toolName: 'flaky' });
  const { output, model } = await run(wrapped, {}, 'c-9');
  assert.equal(output.isError, true);
  assert.equal(output.error?.code, 'TOOL_FAILED');
  assert.equal(model.type, 'error-text');
  assert.match(model.value, /^Error: upstream exploded/);
  assert.match(model.value, /errors\/0001-flaky\.txt/);
  const full = await readFile(path.join(env.host.sandbox.conversation('ws-2').dir, 'errors', '0001-flaky.txt'), 'utf8');
  assert.match(full, /END-OF-MESSAGE/);
  assert.match(full, /\n\s+at /, 'the stack is kept');
  assert.match(full, /Caused by: Error: socket hang up/);
});

test("withSpill and spillwayTools: the host's policy applies, and errors reach the model as error text with their code", async (t) => {
  const env = await tempHost({ policy: { default: 'allow', upstreamDefault: 'ask', rules: { secret_tool: 'deny' } } });
  t.after(() => env.cleanup());
  let ran = false;
  const secret = withSpill(
    tool({
      description: 's',
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
      execute: async () => {
        ran = true;
        return 'x';
      },
    }),
    env.host,
    { conversationId: 'ws-3', toolName: 'secret_tool' },
  );
  const denied = await run(secret, {}, 'c-1');
  assert.equal(ran, false);
  assert.equal(denied.output.error?.code, 'PERMISSION_DENIED');
  assert.equal(denied.model.type, 'error-text');

  const tools = spillwayTools(env.host, { conversationId: 'ws-3' });
  assert.ok(tools.read_file && tools.export_table && tools.call_with_args_file);
  const missing = await run(tools.read_file, { path: 'results/none.jsonl' }, 'c-2');
  assert.equal(missing.output.error?.code, 'PATH_NOT_FOUND');
  assert.equal(missing.model.type, 'error-text');
});

test('the middleware leaves params untouched when the prompt fits, or when no replacement can fit it', async () => {
  const reports: string[] = [];
  const middleware = spillwayContextGuard({ contextWindow: 1000, onReport: (report) => reports.push(report.action) });
  const small = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
  assert.equal(await middleware.transformParams({ type: 'generate', params: small, model: { modelId: 'm' } }), small);
  const huge = {
    prompt: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 't', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'x'.repeat(10_000) } }] },
    ],
  };
  assert.equal(await middleware.transformParams({ type: 'stream', params: huge, model: { modelId: 'm' } }), huge);
  assert.deepEqual(reports, ['none', 'over-budget']);
  assert.equal(middleware.lastReport?.action, 'over-budget');
  assert.throws(() => spillwayContextGuard({ contextWindow: -1 }), /contextWindow/);
});
