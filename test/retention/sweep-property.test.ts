import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { sweepSandbox } from '../../src/retention/sweep.js';
import { at, day, reported, seedFile, tempSandbox } from './seed-sandbox.js';

const folders = ['results', 'errors', 'args', 'scripts', 'outputs'] as const;

const fileArbitrary = fc.record({
  conversation: fc.constantFrom('c1', 'c2', 'c3'),
  folder: fc.constantFrom(...folders),
  sub: fc.constantFrom('', 'nested/', 'nested/deeper/'),
  name: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,11}$/),
  sidecar: fc.boolean(),
  // Whole days plus half a day: never on the 7-day boundary.
  ageDays: fc.integer({ min: 0, max: 20 }).map((days) => days + 0.5),
});

async function listTree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(absolute);
      else if (!entry.name.startsWith('.')) out.push(path.relative(root, absolute));
    }
  };
  await walk(root);
  return out.sort();
}

test('for any sandbox, the sweep removes exactly the non-output files older than the retention, each with its sidecar', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fileArbitrary, { minLength: 1, maxLength: 25, selector: (file) => `${file.conversation}/${file.folder}/${file.sub}${file.name}` }),
      async (files) => {
        const { root, cleanup } = await tempSandbox();
        try {
          const nowMs = Date.now();
          const expected: string[] = [];
          for (const file of files) {
            const relative = `${file.conversation}/${file.folder}/${file.sub}${file.name}.jsonl`;
            await seedFile(root, relative, file.ageDays, nowMs);
            if (file.sidecar) await seedFile(root, `${relative}.meta.json`, file.ageDays, nowMs, '{}');
            if (file.folder !== 'outputs' && file.ageDays > 7) {
              expected.push(relative);
              if (file.sidecar) expected.push(`${relative}.meta.json`);
            }
          }
          const before = await listTree(at(root));
          const dry = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs), dryRun: true, listPaths: true });
          assert.deepEqual(await listTree(at(root)), before);
          const report = await sweepSandbox({ root, olderThanMs: 7 * day, now: () => new Date(nowMs) });
          const after = await listTree(at(root));
          assert.deepEqual(
            before.filter((file) => !after.includes(file)),
            expected.sort(),
          );
          assert.deepEqual(dry.paths?.filter((entry) => !entry.endsWith('/')).sort(), expected.map(reported).sort());
          assert.equal(report.deleted.files, expected.length);
          assert.equal(report.scanned.files, report.deleted.files + report.kept.files + report.skipped.files + report.errors.files);
        } finally {
          await cleanup();
        }
      },
    ),
    { numRuns: 25 },
  );
});
