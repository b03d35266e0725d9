import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { makeRows, tempHost } from './helpers/temp-host.js';

test('a 321-row result spills to JSONL and the model gets the path, rows and columns', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const rows = makeRows(321);
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  const result = await env.host.execute({ name: 'rows', arguments: {} }, { conversationId: 'c1' });
  assert.equal(result.isError, false);
  assert.equal(result.spill?.format, 'jsonl');
  assert.equal(result.spill?.rows, 321);
  assert.deepEqual(result.spill?.columns, ['id', 'name', 'amount', 'active', 'note']);
  assert.match(result.text, /results\/0001-rows\.jsonl/);
  const written = await readFile(path.join(env.host.sandbox.conversation('c1').dir, result.spill!.path), 'utf8');
  assert.deepEqual(
    written
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line)),
    rows,
  );
});
