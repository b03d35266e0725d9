import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { DistinctSketch } from '../../src/spill/distinct-sketch.js';
import { TableProfiler } from '../../src/spill/profile.js';
import type { SpillRef } from '../../src/spill/spill-ref.js';
import { filesHost, spillRows } from '../files/helpers.js';
import { recount } from './recount.js';

const cell = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((value) => (value === 0 ? 0 : value)),
  fc.constantFrom('north', 'south', 'east', 'west', '', 'x'.repeat(250)),
  fc.string({ maxLength: 12 }),
  fc.boolean(),
  fc.constantFrom('2026-01-05', '2025-12-31T23:59:59Z', '2026-03-01T08:00:00.000+02:00', '2024-02-29 10:00'),
  fc.constant({ nested: [1, 2] }),
  fc.constant([1, 'a']),
);
// Few column names, so columns collide, go missing in some rows and mix types.
const row = fc.dictionary(fc.constantFrom('id', 'region', 'amount', 'when', 'note', '__proto__', 'constructor'), cell, { maxKeys: 5 });
// Some tables keep one type per column (the common case: dates, numbers, text stay apart).
const typedRow = fc.record(
  {
    id: fc.integer({ min: 0, max: 50 }),
    region: fc.constantFrom('north', 'south', 'east'),
    when: fc.constantFrom('2026-01-05', '2025-12-31T23:59:59Z', '2026-03-01T08:00:00.000+02:00'),
    amount: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((value) => (value === 0 ? 0 : value))),
  },
  { requiredKeys: ['id'] },
);

test('the profile stored with a spill matches a recount of the file written (property)', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.array(row, { minLength: 1, maxLength: 60 }), fc.array(typedRow, { minLength: 1, maxLength: 200 })), async (rows) => {
      const spillPath = await spillRows(env, rows);
      const file = path.join(env.host.sandbox.conversation('c1').dir, spillPath);
      const meta = JSON.parse(await readFile(`${file}.meta.json`, 'utf8')) as SpillRef;
      assert.ok(meta.profile, 'a table spill carries a profile');
      const expected = await recount(file);
      assert.equal(meta.profile.rows, expected.rows);
      assert.deepEqual(
        meta.profile.columns.map(({ type: _type, distinctEstimated, ...rest }) => {
          assert.equal(distinctEstimated, false);
          return rest;
        }),
        expected.columns,
      );
    }),
    { numRuns: 80 },
  );
});

test('past the distinct cap the count becomes an estimate that says so, within a few percent', () => {
  const profiler = new TableProfiler({ distinctCap: 100, topCardinality: 50, topValues: 5 });
  const total = 20_000;
  for (let index = 0; index < total; index += 1) profiler.add({ id: `user-${index}`, shard: index % 7, flag: index % 2 === 0 });
  const [id, shard, flag] = profiler.profile().columns;
  assert.equal(id?.distinctEstimated, true);
  assert.ok(Math.abs((id?.distinct ?? 0) - total) / total < 0.1, `estimate ${id?.distinct} of ${total}`);
  assert.equal(id?.top, undefined, 'high-cardinality text lists no frequent values');
  assert.deepEqual([shard?.distinct, shard?.distinctEstimated], [7, false]);
  assert.deepEqual(flag?.top, [
    { value: false, count: 10_000 },
    { value: true, count: 10_000 },
  ]);
});

test('the sketch is exact below k and within 4 standard errors above it (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 1, max: 3 }), fc.string({ maxLength: 4 }), (distinct, repeats, prefix) => {
      const sketch = new DistinctSketch(1024);
      for (let round = 0; round < repeats; round += 1) for (let index = 0; index < distinct; index += 1) sketch.add(`${prefix}${index}`);
      const estimate = sketch.estimate();
      if (distinct < 1024) assert.equal(estimate, distinct);
      else assert.ok(Math.abs(estimate - distinct) / distinct < 4 / Math.sqrt(1022), `estimate ${estimate} of ${distinct}`);
    }),
    { numRuns: 25 },
  );
});
