import assert from 'node:assert/strict';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { readJsonlRow } from '../../src/tools/delegation/jsonl-row.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The rows as the readline-based lookup saw them: non-blank lines, numbered from 1 by line. */
function reference(text: string): { text: string; line: number }[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, index) => ({ text: line.endsWith('\r') ? line.slice(0, -1) : line, line: index + 1 })).filter((line) => line.text.trim().length > 0);
}

test('a JSONL row is found by scanning bytes: the same row and line as a line reader, across chunk boundaries', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'rows.jsonl');
  const piece = fc.constantFrom('{"a":1}', '{"b":"ü✓"}', '', ' ', '\t', '\r', 'x'.repeat(70_000), '"é"');
  await fc.assert(
    fc.asyncProperty(fc.array(piece, { maxLength: 12 }), fc.boolean(), fc.nat({ max: 14 }), async (lines, trailing, wanted) => {
      const text = lines.join('\n') + (trailing ? '\n' : '');
      await writeFile(file, text);
      const handle = await open(file, 'r');
      try {
        const lookup = await readJsonlRow(handle, wanted, 1024 * 1024);
        const rows = reference(text);
        const expected = rows[wanted];
        if (expected === undefined) assert.deepEqual(lookup, { found: false, rows: rows.length });
        else assert.deepEqual(lookup, { found: true, text: expected.text, line: expected.line });
      } finally {
        await handle.close();
      }
    }),
    { numRuns: 150 },
  );
});

test('a JSONL row over the cap is reported, not read whole', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'huge.jsonl');
  await writeFile(file, `{"a":1}\n"${'x'.repeat(300_000)}"\n{"c":3}\n`);
  const handle = await open(file, 'r');
  t.after(() => handle.close());
  assert.deepEqual(await readJsonlRow(handle, 1, 100_000), { found: 'too-large', line: 2, bytes: 300_002 });
  assert.deepEqual(await readJsonlRow(handle, 2, 100_000), { found: true, text: '{"c":3}', line: 3 });
});
