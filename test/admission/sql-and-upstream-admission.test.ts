import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LazySqlSource } from '../../src/sql/open-sql-source.js';
import type { SqlResult, SqlSource } from '../../src/sql/sql-source.js';
import { querySqlTool, sqlGateOptions } from '../../src/tools/sql/query-sql.js';
import type { UpstreamConnection } from '../../src/upstream/upstream-connection.js';
import { startUpstreams } from '../../src/upstream/start-upstreams.js';
import { upstreamToolDefinition } from '../../src/upstream/upstream-tool.js';
import type { GateStats } from '../../src/util/admission-gate.js';
import { tempHost } from '../helpers/temp-host.js';

/** Calls that finish only when the test says so, counted as they start. */
function heldCalls<T>(answer: T): { started: () => number; fn: () => Promise<T>; releaseAll(): void } {
  const waiting: (() => void)[] = [];
  let count = 0;
  return {
    started: () => count,
    fn: () => {
      count += 1;
      return new Promise<T>((resolve) => waiting.push(() => resolve(answer)));
    },
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

function queue(health: Record<string, unknown>, name: string): GateStats | undefined {
  return (health.queues as Record<string, GateStats>)[name];
}

test('query_sql: past sql.maxConcurrent running and sql.maxWaiting waiting, a query is refused at once with BUSY', async (t) => {
  const env = await tempHost({ sql: { maxConcurrent: 1, maxWaiting: 1 } }, { builtins: false });
  t.after(() => env.cleanup());
  const result: SqlResult = { columns: ['n'], rows: [{ n: 1 }], total: 1, blobColumns: [], notes: [] };
  const held = heldCalls(result);
  const source = { kind: 'demo', dialect: 'SQLite', description: 'held', query: held.fn, close: async () => undefined } as SqlSource;
  const lazy = { get: async () => source } as unknown as LazySqlSource;
  env.host.registerTool(querySqlTool({ source: lazy, gate: env.host.queues.gate(sqlGateOptions(() => env.host.config)) }));

  const sql = { sql: 'SELECT 1 AS n' };
  const first = env.host.execute({ name: 'query_sql', arguments: sql }, { conversationId: 'c1' });
  const second = env.host.execute({ name: 'query_sql', arguments: sql }, { conversationId: 'c2' });
  while (queue(env.host.health(), 'sql')?.waiting !== 1) await new Promise((resolve) => setImmediate(resolve));
  const refused = await env.host.execute({ name: 'query_sql', arguments: sql }, { conversationId: 'c3' });
  assert.equal(refused.error?.code, 'BUSY');
  assert.deepEqual(refused.error?.details, { queue: 'sql', running: 1, waiting: 1, limit: 2, reason: 'full' });
  assert.match(refused.text, /2 queries running or waiting, limit 2 \(sql\.maxConcurrent, sql\.maxWaiting\)/);
  assert.equal(held.started(), 1);
  held.releaseAll();
  assert.equal((await first).isError, false);
  // The waiting query started only when the first freed its slot.
  while (held.started() < 2) await new Promise((resolve) => setImmediate(resolve));
  held.releaseAll();
  assert.equal((await second).isError, false);
  assert.deepEqual(queue(env.host.health(), 'sql')?.refused, { full: 1, deadline: 0 });
});

test('the built-in query_sql is behind the "sql" queue, sized by sql.maxConcurrent and sql.maxWaiting', async (t) => {
  const env = await tempHost({ sql: { maxConcurrent: 3, maxWaiting: 5 } });
  t.after(() => env.cleanup());
  const result = await env.host.execute({ name: 'query_sql', arguments: { sql: 'SELECT 1 AS n' } }, { conversationId: 'c1' });
  assert.equal(result.isError, false, result.text);
  const sql = queue(env.host.health(), 'sql');
  assert.deepEqual([sql?.maxRunning, sql?.maxWaiting, sql?.limit, sql?.admitted], [3, 5, 8, 1]);
});

test('calls to one upstream beyond its caps are refused with BUSY (queue upstream:NAME); per-upstream keys win over upstream.*', async (t) => {
  const env = await tempHost({
    policy: { rules: { '*': 'allow' } },
    upstream: { maxConcurrent: 8, maxWaiting: 32 },
  });
  t.after(() => env.cleanup());
  // The caps of "slow" come from its own entry (read from the call's configuration).
  env.host.updateConfig({
    ...env.host.config,
    upstreams: { slow: { command: 'unused', maxConcurrent: 1, maxWaiting: 0 } },
  });
  const answer: CallToolResult = { content: [{ type: 'text', text: 'done' }] };
  const held = heldCalls(answer);
  const connection = { name: 'slow', callTool: held.fn } as unknown as UpstreamConnection;
  env.host.registerTool(upstreamToolDefinition(connection, { name: 'wait', inputSchema: { type: 'object' } }));
  const other = { name: 'other', callTool: async () => answer } as unknown as UpstreamConnection;
  env.host.registerTool(upstreamToolDefinition(other, { name: 'ping', inputSchema: { type: 'object' } }));

  const first = env.host.execute({ name: 'slow__wait', arguments: {} }, { conversationId: 'c1' });
  while (held.started() < 1) await new Promise((resolve) => setImmediate(resolve));
  const refused = await env.host.execute({ name: 'slow__wait', arguments: {} }, { conversationId: 'c2' });
  assert.equal(refused.error?.code, 'BUSY');
  assert.deepEqual(refused.error?.details, { queue: 'upstream:slow', running: 1, waiting: 0, limit: 1, reason: 'full' });
  assert.match(refused.text, /1 call to slow running or waiting, limit 1/);
  // Another upstream has its own queue and is not held up.
  const fine = await env.host.execute({ name: 'other__ping', arguments: {} }, { conversationId: 'c3' });
  assert.equal(fine.isError, false, fine.text);
  held.releaseAll();
  assert.equal((await first).isError, false);
  const health = env.host.health();
  assert.deepEqual(queue(health, 'upstream:slow')?.refused, { full: 1, deadline: 0 });
  assert.deepEqual([queue(health, 'upstream:other')?.maxRunning, queue(health, 'upstream:other')?.maxWaiting], [8, 32]);
});

test('each configured upstream has its queue in the health report from the start, with its own caps', async (t) => {
  const env = await tempHost({ upstream: { maxConcurrent: 8, maxWaiting: 32 } });
  t.after(() => env.cleanup());
  env.host.updateConfig({
    ...env.host.config,
    upstreams: { missing: { command: path.join(env.dir, 'no-such-program'), maxWaiting: 3 } },
  });
  startUpstreams(env.host);
  const missing = queue(env.host.health(), 'upstream:missing');
  assert.deepEqual([missing?.maxRunning, missing?.maxWaiting, missing?.admitted], [8, 3, 0]);
});
