// A large result is prepared (serialized, screened, profiled) in slices with a turn of the
// event loop between them, so one call's 100,000 rows cannot hold up every other call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, filesHost } from '../files/helpers.js';

test('a large table result gives the event loop a turn every few thousand rows while it is screened and profiled', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const rowCount = 40_000;
  // Each row's note is read through a getter that counts: how many reads happen between two
  // turns of the loop is how much work one slice did. Every note holds a prefilter anchor
  // ("ignore"), so every row is walked: the slowest case.
  let reads = 0;
  const rows = Array.from({ length: rowCount }, (_, id) =>
    Object.defineProperty({ id }, 'note', {
      enumerable: true,
      get: () => {
        reads += 1;
        return `please ignore row ${id}`;
      },
    }),
  );
  env.host.registerTool({ name: 'many', description: 'many', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  // A callback that puts itself back runs once a turn: it notes the most reads done in one turn.
  let seen = 0;
  let widest = 0;
  let counting = true;
  const turn = () => {
    widest = Math.max(widest, reads - seen);
    seen = reads;
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  const result = await call(env, 'many', {});
  counting = false;
  assert.equal(result.isError, false, result.text);
  assert.equal(result.spill?.rows, rowCount);
  assert.ok(reads >= 2 * rowCount, `each row is read to serialize and to screen it (${reads} reads)`);
  // A slice is 2,048 rows serialized, or screened and profiled (a few reads a row), never the whole table.
  assert.ok(widest <= 2048 * 4, `${widest} reads happened in one turn of the loop`);
});

test('very wide rows count as many rows: a table of 200 rows of 2,000 columns still gives the loop turns', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  let reads = 0;
  const columns = Object.fromEntries(Array.from({ length: 2000 }, (_, column) => [`c${column}`, column]));
  const rows = Array.from({ length: 200 }, (_, id) =>
    Object.defineProperty({ id, ...columns }, 'note', {
      enumerable: true,
      get: () => {
        reads += 1;
        return `please ignore row ${id}`;
      },
    }),
  );
  env.host.registerTool({ name: 'wide', description: 'wide', inputSchema: { type: 'object' }, handler: () => ({ value: rows }) });
  let seen = 0;
  let widest = 0;
  let counting = true;
  const turn = () => {
    widest = Math.max(widest, reads - seen);
    seen = reads;
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  const result = await call(env, 'wide', {});
  counting = false;
  assert.equal(result.isError, false, result.text);
  assert.equal(result.spill?.rows, 200);
  assert.ok(reads >= 2 * 200, `each row is read to serialize and to screen it (${reads} reads)`);
  // A row of ~18,000 characters weighs ~36 ordinary rows: ~57 rows a turn, three reads each at most.
  assert.ok(widest <= 250, `${widest} reads happened in one turn of the loop`);
});
