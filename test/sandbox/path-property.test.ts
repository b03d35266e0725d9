import assert from 'node:assert/strict';
import { mkdir, readdir, readlink, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { SpillwayError } from '../../src/errors.js';
import { SandboxRoot } from '../../src/sandbox/index.js';
import { tempDir } from '../helpers/temp-dir.js';

async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

function inside(dir: string, candidate: string): boolean {
  return candidate === dir || candidate.startsWith(dir + path.sep);
}

test('property: no generated path reads or writes outside its conversation folder', async (t) => {
  const dir = await tempDir(t);
  const root = await SandboxRoot.open(path.join(dir, 'sandbox'));
  const a = root.conversation('conv-a');
  const b = root.conversation('conv-b');
  await a.ensure();
  await b.ensure();
  const outside = path.join(dir, 'outside');
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(b.dir, 'results', 'theirs.txt'), 'theirs');
  await writeFile(path.join(a.dir, 'results', 'mine.txt'), 'mine');
  // Symlinks made on disk, pointing out in every way, plus some that stay inside.
  const results = path.join(a.dir, 'results');
  await symlink(outside, path.join(results, 'out-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(results, 'out-file'));
  await symlink(b.dir, path.join(results, 'to-b'));
  await symlink('../../conv-b', path.join(results, 'rel-b'));
  await symlink('/', path.join(results, 'fs-root'));
  await symlink('/etc/passwd', path.join(results, 'passwd'));
  await symlink('loop', path.join(results, 'loop'));
  await symlink('mine.txt', path.join(results, 'alias.txt'));
  await symlink('.', path.join(results, 'self'));
  const outsideBefore = await listTree(outside);
  const bBefore = await listTree(b.dir);
  const realA = await realpath(a.dir);

  const segment = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('results', 'errors', 'args', 'outputs', 'out-dir', 'out-file', 'to-b', 'rel-b', 'fs-root', 'passwd', 'loop', 'alias.txt', 'self', 'mine.txt', 'secret.txt', 'theirs.txt', 'conv-b', 'etc') },
    { weight: 2, arbitrary: fc.constantFrom('..', '.', '', '...', '~', 'C:', '\\..', '..\\..', 'a\0b', '%2e%2e', '．．', '\u2215', '\uff0f', 'é', 'e\u0301', '\ud800') },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  );
  const generated = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.constantFrom('', '/', '//', './', dir + '/', 'C:\\')).map(([parts, lead]) => lead + parts.join('/'));
  // Paths that must open, mixed in so every run reaches real files (random segments alone rarely spell one).
  const reachable = fc.constantFrom('results/mine.txt', 'results/alias.txt', 'results/self/mine.txt', './results/mine.txt', 'results//mine.txt');
  const input = fc.oneof({ weight: 9, arbitrary: generated }, { weight: 1, arbitrary: reachable });

  let opened = 0;
  let written = 0;
  await fc.assert(
    fc.asyncProperty(input, async (candidate) => {
      try {
        const file = await a.openRead(candidate);
        try {
          opened += 1;
          assert.ok(inside(realA, file.absolute), `${candidate} -> ${file.absolute}`);
          assert.ok(inside(realA, await readlink(`/proc/self/fd/${file.handle.fd}`)));
        } finally {
          await file.handle.close();
        }
      } catch (error) {
        assert.ok(SpillwayError.is(error), `uncoded error for ${JSON.stringify(candidate)}: ${String(error)}`);
      }
      try {
        const target = await a.writeFile(candidate, 'x', { pickFreeName: true });
        written += 1;
        assert.ok(inside(realA, target.absolute), `${candidate} -> ${target.absolute}`);
        assert.ok(inside(realA, await realpath(target.absolute)));
      } catch (error) {
        assert.ok(SpillwayError.is(error), `uncoded error for ${JSON.stringify(candidate)}: ${String(error)}`);
      }
    }),
    { numRuns: 600 },
  );
  assert.ok(opened > 0 && written > 0, `the generator reached real files (opened ${opened}, written ${written})`);
  assert.deepEqual(await listTree(outside), outsideBefore);
  assert.deepEqual(await listTree(b.dir), bBefore);
});
