// A result nested deeper than the stack goes: execute never throws for it. Sent as JSON text
// it is kept, screened and spilled as that text; a value with no text is refused with a code.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { call, filesHost, outputPath } from '../files/helpers.js';

const depth = 100_000;

test('a JSON text nested 100,000 deep is kept as text; a value nested as deep fails with RESULT_TOO_LARGE; an error result as deep keeps its text', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const deepText = `${'['.repeat(depth)}"AKIAIOSFODNN7EXAMPLQ"${']'.repeat(depth)}`;
  env.host.registerTool({
    name: 'deep_text',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({ mcp: { content: [{ type: 'text', text: deepText }] } }),
  });
  env.host.registerTool({
    name: 'deep_error',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => ({ mcp: { isError: true, content: [{ type: 'text', text: deepText }] } }),
  });
  env.host.registerTool({
    name: 'deep_value',
    description: 'x',
    inputSchema: { type: 'object' },
    handler: () => {
      let value: unknown = [];
      for (let level = 0; level < depth; level += 1) value = [value];
      return { value };
    },
  });

  const asText = await call(env, 'deep_text', {});
  assert.equal(asText.isError, false);
  assert.equal(asText.spill?.format, 'text');
  const file = await readFile(outputPath(env, asText.spill?.path ?? ''), 'utf8');
  assert.equal(file.length, deepText.length - 'AKIAIOSFODNN7EXAMPLQ'.length + '[REDACTED:aws-access-key]'.length, 'the text, screened as text');
  assert.equal(asText.screening?.kinds['aws-access-key'], 1);

  const asError = await call(env, 'deep_error', {});
  assert.equal(asError.isError, true);
  assert.equal(asError.error?.code, 'UPSTREAM_ERROR');

  const asValue = await call(env, 'deep_value', {});
  assert.equal(asValue.isError, true);
  assert.equal(asValue.error?.code, 'RESULT_TOO_LARGE');
  assert.match(asValue.text, /nested too deeply/);
});
