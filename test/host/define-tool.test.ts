import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../../src/config/load-config.js';
import { defineTool } from '../../src/host/define-tool.js';
import { listTool } from '../../src/host/list-tool.js';
import { toMcpTool } from '../../src/mcp/mcp-server.js';
import { enumOf } from '../../src/util/schema-builders.js';
import { tempHost } from '../helpers/temp-host.js';

const conversationId = 'c1';

function labelTool(seen: unknown[]) {
  return defineTool({
    name: 'label',
    description: 'Labels a count.',
    inputSchema: Type.Object(
      {
        name: Type.String({ minLength: 1 }),
        count: Type.Optional(Type.Integer({ minimum: 0 })),
        mode: enumOf(['short', 'long']),
      },
      { additionalProperties: false },
    ),
    handler(args) {
      seen.push(args);
      // The arguments have the schema's type: no casts, and a wrong use does not compile.
      const name: string = args.name;
      const count: number = args.count ?? 0;
      const mode: 'short' | 'long' = args.mode;
      // @ts-expect-error count is a number, not a string
      const wrong: string = args.count;
      void wrong;
      return { value: mode === 'short' ? `${name}: ${count}` : `${name} has ${count}` };
    },
  });
}

test("a tool written with defineTool gets its checked arguments with the schema's type; bad arguments never reach it", async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const seen: unknown[] = [];
  env.host.registerTool(labelTool(seen));
  const good = await env.host.execute({ name: 'label', arguments: { name: 'rows', count: 3, mode: 'long' } }, { conversationId });
  assert.equal(good.isError, false);
  assert.equal(good.text, 'rows has 3');
  const bad = await env.host.execute({ name: 'label', arguments: { name: '', count: 1.5, mode: 'tiny', extra: true } }, { conversationId });
  assert.equal(bad.error?.code, 'INVALID_ARGUMENTS');
  const errors = (bad.error?.details as { errors: string[] }).errors;
  for (const expected of [
    /^\$\.name: must NOT have fewer than 1 characters/,
    /^\$\.count: must be integer/,
    /^\$\.mode: must be one of "short", "long"/,
    /^\$: unknown property "extra"/,
  ]) {
    assert.ok(
      errors.some((line) => expected.test(line)),
      `${expected} in ${errors.join(' | ')}`,
    );
  }
  assert.equal(seen.length, 1, 'the handler ran for the good call only');
});

test('the TypeBox schema is listed to MCP clients as plain JSON Schema', () => {
  const listed = JSON.parse(JSON.stringify(toMcpTool(listTool(labelTool([]), loadConfig({ env: {} }))))) as { inputSchema: Record<string, unknown> };
  assert.deepEqual(listed.inputSchema, {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'mode'],
    properties: {
      name: { type: 'string', minLength: 1 },
      count: { type: 'integer', minimum: 0 },
      mode: { enum: ['short', 'long'] },
    },
  });
});
