import assert from 'node:assert/strict';
import { lstat, mkdir, readdir, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { SpillwayError } from '../../src/errors.js';
import { assertPrincipal, SandboxRoot } from '../../src/sandbox/index.js';
import { rejectionCode, tempDir } from '../helpers/temp-dir.js';
import { tempHost } from '../helpers/temp-host.js';

test('two principals using the same conversation name get two folders; neither reads the other', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const alice = env.host.sandbox.conversation('shared-name', 'alice');
  const bob = env.host.sandbox.conversation('shared-name', 'bob');
  assert.equal(alice.dir, path.join(env.sandboxRoot, 'alice', 'shared-name'));
  assert.notEqual(alice.dir, bob.dir);
  const write = (principal: string, content: string) =>
    env.host.execute({ name: 'write_file', arguments: { path: 'args/note.json', content } }, { conversationId: 'shared-name', principal });
  const read = (principal: string | undefined) =>
    env.host.execute(
      { name: 'read_file', arguments: { path: 'args/note.json' } },
      { conversationId: 'shared-name', ...(principal === undefined ? {} : { principal }) },
    );
  assert.equal((await write('alice', '{"who":"alice"}')).isError, false);
  assert.match((await read('alice')).text, /alice/);
  const bobRead = await read('bob');
  assert.equal(bobRead.isError, true);
  assert.equal(bobRead.error?.code, 'PATH_NOT_FOUND');
  assert.equal((await read(undefined)).error?.code, 'PATH_NOT_FOUND', 'the default principal (local) is another principal too');
  // Paths cannot climb to the other principal's folder.
  const climb = await env.host.execute({ name: 'read_file', arguments: { path: '../../alice/shared-name/args/note.json' } }, { conversationId: 'shared-name', principal: 'bob' });
  assert.equal(climb.isError, true);
  assert.equal(await readFile(path.join(alice.dir, 'args', 'note.json'), 'utf8'), '{"who":"alice"}');
  assert.deepEqual((await readdir(env.sandboxRoot)).filter((name) => !name.startsWith('.')).sort(), ['alice', 'bob', 'local']);
});

test('a principal that is not a folder name is refused with PRINCIPAL_INVALID and a reason; nothing is created', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  for (const [principal, reason] of [
    ['', 'empty'],
    ['..', 'first-character'],
    ['.hidden', 'first-character'],
    ['a/b', 'characters'],
    ['a b', 'characters'],
    ['a..b', 'dot-dot'],
    ['x'.repeat(129), 'too-long'],
  ] as const) {
    const result = await env.host.execute({ name: 'list_files', arguments: {} }, { conversationId: 'c1', principal });
    assert.equal(result.error?.code, 'PRINCIPAL_INVALID', principal);
    assert.equal((result.error?.details as { reason?: string } | undefined)?.reason, reason, principal);
    assert.throws(() => env.host.sandbox.conversation('c1', principal), (error: unknown) => SpillwayError.is(error) && error.code === 'PRINCIPAL_INVALID');
  }
  assert.deepEqual((await readdir(env.sandboxRoot)).filter((name) => !name.startsWith('.')), []);
});

test('property: a principal that passes is one plain folder name, and every name the rule refuses is refused with a reason', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 140 }), fc.stringMatching(/^[A-Za-z0-9._@\-/]{0,140}$/), fc.constantFrom('.', '..', 'local', 'a..b', 'A-1_b.c', 'carol@example.com', '@carol')), (name) => {
      let passed = true;
      try {
        assertPrincipal(name);
      } catch (error) {
        passed = false;
        assert.ok(SpillwayError.is(error) && error.code === 'PRINCIPAL_INVALID');
        assert.equal(typeof (error.details as { reason?: unknown }).reason, 'string');
      }
      const plain = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/.test(name) && !name.includes('..');
      assert.equal(passed, plain, JSON.stringify(name));
      if (passed) {
        assert.equal(path.basename(name), name);
        assert.equal(path.normalize(name), name);
        assert.ok(!path.isAbsolute(name));
      }
    }),
    { numRuns: 2000 },
  );
});

test('folders are created 0700 and files 0600 whatever the umask (spills, sidecars, outputs, arguments files, the execution record)', async (t) => {
  const previous = process.umask(0);
  t.after(() => process.umask(previous));
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool({ name: 'big', description: 'spills', inputSchema: { type: 'object' }, handler: () => ({ value: [{ a: 'x'.repeat(3000) }] }) });
  const spill = await env.host.execute({ name: 'big', arguments: {} }, { conversationId: 'modes', principal: 'alice' });
  assert.ok(spill.spill !== undefined);
  await env.host.execute({ name: 'write_file', arguments: { path: 'args/a.json', content: '{}' } }, { conversationId: 'modes', principal: 'alice' });
  await env.host.execute({ name: 'write_file', arguments: { path: 'scripts/deep/s.js', content: 'return 1' } }, { conversationId: 'modes', principal: 'alice' });
  const exported = await env.host.execute(
    { name: 'export_table', arguments: { source: spill.spill.path, format: 'csv' } },
    { conversationId: 'modes', principal: 'alice' },
  );
  assert.equal(exported.isError, false, exported.text);
  await env.host.close();
  const dir = env.host.sandbox.conversation('modes', 'alice').dir;
  const mode = async (at: string) => (await stat(at)).mode & 0o777;
  for (const folder of [path.dirname(dir), dir, ...['results', 'errors', 'args', 'scripts', 'outputs', 'scripts/deep'].map((name) => path.join(dir, name))]) {
    assert.equal(await mode(folder), 0o700, folder);
  }
  const files = [
    path.join(dir, spill.spill.path),
    path.join(dir, `${spill.spill.path}.meta.json`),
    path.join(dir, 'args/a.json'),
    path.join(dir, 'scripts/deep/s.js'),
    path.join(dir, exported.attachments[0]?.path ?? 'missing'),
    path.join(env.config.data.dir, 'records.jsonl'),
  ];
  for (const file of files) assert.equal(await mode(file), 0o600, file);
  assert.match(await readFile(path.join(env.config.data.dir, 'records.jsonl'), 'utf8'), /"principal":"alice"/);
});

test('an execution record created earlier with wider permissions is narrowed to 0600 when opened', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  await mkdir(env.config.data.dir, { recursive: true });
  const records = path.join(env.config.data.dir, 'records.jsonl');
  await writeFile(records, '', { mode: 0o644 });
  await env.host.execute({ name: 'list_files', arguments: {} }, { conversationId: 'c1' });
  await env.host.close();
  assert.equal((await stat(records)).mode & 0o777, 0o600);
});

test('a symlinked principal folder is refused like a symlinked conversation folder; nothing is created through it', async (t) => {
  const dir = await tempDir(t);
  const root = await SandboxRoot.open(path.join(dir, 'sandbox'));
  const elsewhere = path.join(dir, 'elsewhere');
  await mkdir(elsewhere);
  await symlink(elsewhere, path.join(root.root, 'mallory'));
  const sandbox = root.conversation('c1', 'mallory');
  assert.equal(await rejectionCode(sandbox.ensure()), 'SANDBOX_ROOT_INVALID');
  assert.equal(await rejectionCode(sandbox.writeFile('args/x.json', '{}', { folders: ['args'] })), 'SANDBOX_ROOT_INVALID');
  assert.deepEqual(await readdir(elsewhere), [], 'nothing was created through the link');
  // A principal folder swapped for a symlink after its conversation was made is refused too.
  const alice = root.conversation('c1', 'alice');
  await alice.ensure();
  await mkdir(path.join(elsewhere, 'c1', 'args'), { recursive: true });
  await rename(path.join(root.root, 'alice'), path.join(dir, 'alice-moved'));
  await symlink(elsewhere, path.join(root.root, 'alice'));
  assert.equal(await rejectionCode(alice.writeFile('args/y.json', '{}', { folders: ['args'] })), 'PATH_ESCAPES');
  assert.deepEqual(await readdir(path.join(elsewhere, 'c1', 'args')), []);
  assert.ok((await lstat(path.join(root.root, 'alice'))).isSymbolicLink());
});

test('a root of the old layout (<root>/<conversation>/results/...) is refused with SANDBOX_LAYOUT_OLD naming the command', async (t) => {
  const dir = await tempDir(t);
  const rootDir = path.join(dir, 'sandbox');
  const root = await SandboxRoot.open(rootDir);
  await root.conversation('new-one').ensure();
  await SandboxRoot.open(rootDir); // the new layout opens again
  await mkdir(path.join(root.root, 'old-conversation', 'results'), { recursive: true });
  await writeFile(path.join(root.root, 'old-conversation', 'results', '0001-q.jsonl'), '{}\n');
  try {
    await SandboxRoot.open(rootDir);
    assert.fail('expected SANDBOX_LAYOUT_OLD');
  } catch (error) {
    assert.ok(SpillwayError.is(error) && error.code === 'SANDBOX_LAYOUT_OLD', String(error));
    assert.match(error.message, /spillway migrate-sandbox --root /);
    assert.deepEqual((error.details as { folders: string[] }).folders, ['old-conversation']);
  }
});

test('a principal whose conversations are named like the fixed folders is not mistaken for the old layout', async (t) => {
  const dir = await tempDir(t);
  const rootDir = path.join(dir, 'sandbox');
  const root = await SandboxRoot.open(rootDir);
  for (const name of ['results', 'outputs', 'args']) await root.conversation(name, 'odd').ensure();
  await SandboxRoot.open(rootDir);
});
