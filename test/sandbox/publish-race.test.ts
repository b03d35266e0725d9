import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { writeFileAtomic } from '../../src/sandbox/index.js';
import { tempDir } from '../helpers/temp-dir.js';

// node --test runs each file in its own process: replacing fs.promises.link here touches no other test.

test('a publish whose temporary name is removed between its link and its unlink (by recovery) is still published', async (t) => {
  const dir = await tempDir(t);
  const realLink = fsp.link;
  fsp.link = async (existing, target) => {
    await realLink(existing, target);
    // What recovery does to a file it finds with a temporary second link.
    await fsp.unlink(existing);
  };
  syncBuiltinESMExports();
  t.after(() => {
    fsp.link = realLink;
    syncBuiltinESMExports();
  });
  const final = await writeFileAtomic(path.join(dir, 'report.csv'), 'a,b\n');
  assert.equal(path.basename(final), 'report.csv');
  assert.equal(await fsp.readFile(final, 'utf8'), 'a,b\n');
  assert.deepEqual(await fsp.readdir(dir), ['report.csv']);
});
