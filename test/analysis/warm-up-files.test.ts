import assert from 'node:assert/strict';
import { closeSync, existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { warmUpFiles } from '../../src/analysis/warm-up-files.js';

test("the DuckDB warm-up's files never have a name in the temporary folder (a child killed while warming leaves nothing)", (t) => {
  if (!existsSync('/proc/self/fd')) {
    t.skip('no /proc/self/fd here: the warm-up falls back to a folder of its own');
    return;
  }
  const before = new Set(readdirSync(tmpdir()));
  const fds: number[] = [];
  try {
    const files = warmUpFiles(['{"a":1}\n', '{"b":2}\n'], fds);
    assert.equal(files.folder, undefined, 'no folder to remove');
    assert.deepEqual(
      readdirSync(tmpdir()).filter((name) => !before.has(name)),
      [],
      'nothing new in the temporary folder while the files are open',
    );
    assert.deepEqual(
      files.paths.map((file) => readFileSync(file, 'utf8')),
      ['{"a":1}\n', '{"b":2}\n'],
      'both are readable by the paths DuckDB is given',
    );
    for (const fd of fds) {
      // O_TMPFILE's files show as "<folder>/#<inode> (deleted)": made without a name, not named and then removed.
      assert.match(readlinkSync(`/proc/self/fd/${fd}`), /\/#\d+ \(deleted\)$/);
    }
  } finally {
    for (const fd of fds) closeSync(fd);
  }
});
