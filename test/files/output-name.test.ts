import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { outputFilename } from '../../src/tools/files/output-name.js';
import { normalizeSelection } from '../../src/files/selection/selection.js';

test('output names: the default comes from the source, a missing extension is added, folders and odd names are refused', () => {
  assert.equal(outputFilename({ requested: undefined, sourcePath: 'results/0007-query_sql.jsonl', extension: 'xlsx' }), '0007-query_sql.xlsx');
  assert.equal(outputFilename({ requested: 'Sales 2026', sourcePath: 'x', extension: 'csv' }), 'Sales 2026.csv');
  assert.equal(outputFilename({ requested: 'sales.CSV', sourcePath: 'x', extension: 'csv' }), 'sales.CSV');
  assert.equal(outputFilename({ requested: 'v1.2', sourcePath: 'x', extension: 'csv' }), 'v1.2.csv');
  for (const bad of ['a/b.csv', '..', '.hidden', 'x\u0000.csv', 'a:b', ' lead.csv', 'report.xlsx']) {
    assert.throws(() => outputFilename({ requested: bad, sourcePath: 'x', extension: 'csv' }), /filename/, bad);
  }
});

test('output names never contain a folder separator or start with "." (property)', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), (requested) => {
      let name: string;
      try {
        name = outputFilename({ requested, sourcePath: 'results/x.jsonl', extension: 'csv' });
      } catch {
        return;
      }
      assert.ok(!name.includes('/') && !name.includes('\\') && !name.startsWith('.') && name.toLowerCase().endsWith('.csv'), name);
    }),
    { numRuns: 500 },
  );
});

test('selection arguments are checked where they enter, naming the field', () => {
  assert.deepEqual(normalizeSelection({ columns: ['a', { name: 'b', header: 'B' }], sort: { column: 'a' }, range: { start: 0 } }), {
    columns: [
      { name: 'a', header: 'a' },
      { name: 'b', header: 'B' },
    ],
    sort: [{ column: 'a', direction: 'asc' }],
    range: { start: 0 },
  });
  assert.throws(() => normalizeSelection({ columns: [] }), /columns must be a non-empty list/);
  assert.throws(() => normalizeSelection({ sort: { column: 'a', direction: 'up' } }), /direction must be "asc" or "desc"/);
  assert.throws(
    () => normalizeSelection({ range: { start: 1.5 } }),
    (error: unknown) => (error as { code?: string }).code === 'INVALID_RANGE',
  );
  assert.throws(() => normalizeSelection({ range: { start: 0, count: -1 } }), /range\.count must be a whole number/);
});
