// A large result is prepared (serialized, screened, profiled) in slices with a turn of the
// event loop between them, so one call's 100,000 rows cannot hold up every other call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, filesHost } from '../files/helpers.js';
import type { TempHost } from '../helpers/temp-host.js';

/**
 * Rows whose note is read through a getter that counts (every note holds a prefilter anchor,
 * "ignore", so every row is walked: the slowest case); `extra` are the other columns.
 */
function countedRows(count: number, extra: Record<string, unknown> = {}) {
  const counter = { reads: 0 };
  const rows = Array.from({ length: count }, (_, id) =>
    Object.defineProperty({ id, ...extra }, 'note', {
      enumerable: true,
      get: () => {
        counter.reads += 1;
        return `please ignore row ${id}`;
      },
    }),
  );
  return { rows, counter };
}

/**
 * Calls a tool returning `rows` and notes the most getter reads done in one turn of the loop:
 * a callback that puts itself back runs once a turn.
 */
async function widestTurn(env: TempHost, rows: unknown[], counter: { reads: number }) {
  env.host.registerTool({ name: 'rows', description: 'rows', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  let seen = 0;
  let widest = 0;
  let counting = true;
  const turn = () => {
    widest = Math.max(widest, counter.reads - seen);
    seen = counter.reads;
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  const result = await call(env, 'rows', {});
  counting = false;
  assert.equal(result.isError, false, result.text);
  assert.equal(result.spill?.rows, rows.length);
  assert.ok(counter.reads >= 2 * rows.length, `each row is read to serialize and to screen it (${counter.reads} reads)`);
  return widest;
}

test('a large table result gives the event loop a turn every few thousand rows while it is screened and profiled', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const { rows, counter } = countedRows(40_000);
  const widest = await widestTurn(env, rows, counter);
  // A slice is 2,048 rows serialized, or screened and profiled (a few reads a row), never the whole table.
  assert.ok(widest <= 2048 * 4, `${widest} reads happened in one turn of the loop`);
});

test('very wide rows count as many rows: a table of 200 rows of 2,000 columns still gives the loop turns', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const columns = Object.fromEntries(Array.from({ length: 2000 }, (_, column) => [`c${column}`, column]));
  const { rows, counter } = countedRows(200, columns);
  const widest = await widestTurn(env, rows, counter);
  // A row of ~18,000 characters weighs ~36 ordinary rows: ~57 rows a turn, three reads each at most.
  assert.ok(widest <= 250, `${widest} reads happened in one turn of the loop`);
});
