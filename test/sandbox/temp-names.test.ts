// Temporary names (".name.PID.RANDOM.tmp") stay within a name's 255 bytes however long the
// final name is, so a legal output name never fails on its temporary file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isTempName, tempNamePrefix } from '../../src/sandbox/index.js';
import { call, filesHost, ok } from '../files/helpers.js';

test('property: a temporary name fits 255 bytes, is a temporary name, and keeps as much of the final name as fits, cut on a code point', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }), (finalName) => {
      const prefix = tempNamePrefix(finalName);
      const temp = `${prefix}${'0'.repeat(12)}.tmp`;
      assert.ok(Buffer.byteLength(temp) <= 255, `${Buffer.byteLength(temp)} bytes`);
      assert.ok(isTempName(temp));
      const kept = prefix.slice(1, prefix.length - `.${process.pid}.`.length);
      assert.ok(finalName.startsWith(kept));
      if (Buffer.byteLength(finalName) <= 229) assert.equal(kept, finalName);
      else assert.ok(Buffer.byteLength(kept) > 229 - 4, 'at most one code point short of the room');
    }),
  );
});

test('an output name of 236 bytes in 118 characters (its temporary name would be over 255) is written', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  await call(env, 'write_file', { path: 'args/data.json', content: JSON.stringify([{ a: 1 }, { a: 2 }]) });
  const filename = `${'ä'.repeat(118)}.csv`;
  const exported = ok(await call(env, 'export_table', { source: 'args/data.json', format: 'csv', filename }));
  assert.equal(exported.path, `outputs/${filename}`);
});
