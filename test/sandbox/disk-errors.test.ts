import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { SpillwayError } from '../../src/errors.js';
import { workerTask } from '../../src/files/pool/worker-run.js';
import { createPendingFile, SandboxRoot, toDiskError, toDiskErrorFromText, withoutHostPaths, writeFileAtomic } from '../../src/sandbox/index.js';
import { mountReadOnly, mountSmallDisk, type TestMount } from '../helpers/mounts.js';
import { tempDir } from '../helpers/temp-dir.js';

function systemError(code: string, syscall: string, file?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failure, ${syscall}${file === undefined ? '' : ` '${file}'`}`), { code, syscall, errno: -1, ...(file === undefined ? {} : { path: file }) });
}

const base = '/srv/spillway/sandbox/c1';

test('each errno becomes its code: full, read-only (on write), I/O for the rest; path errnos and sockets are left alone', () => {
  const cases: [string, string, 'read' | 'write', string | undefined][] = [
    ['ENOSPC', 'write', 'write', 'DISK_FULL'],
    ['EDQUOT', 'write', 'write', 'DISK_FULL'],
    ['EROFS', 'open', 'write', 'SANDBOX_READ_ONLY'],
    ['EACCES', 'open', 'write', 'SANDBOX_READ_ONLY'],
    ['EPERM', 'link', 'write', 'SANDBOX_READ_ONLY'],
    ['EACCES', 'open', 'read', 'DISK_IO'],
    ['EIO', 'write', 'write', 'DISK_IO'],
    ['EIO', 'read', 'read', 'DISK_IO'],
    ['EFBIG', 'write', 'write', 'DISK_IO'],
    ['ENOENT', 'open', 'write', undefined],
    ['ELOOP', 'open', 'write', undefined],
    ['EEXIST', 'link', 'write', undefined],
    ['ECONNRESET', 'read', 'read', undefined],
    ['EPIPE', 'write', 'write', undefined],
    ['EIO', 'connect', 'write', undefined],
  ];
  for (const [errno, syscall, operation, expected] of cases) {
    assert.equal(toDiskError(systemError(errno, syscall, `${base}/outputs/x.csv`), { base, operation })?.code, expected, `${errno} ${syscall} ${operation}`);
  }
  assert.equal(toDiskError(new Error('plain')), undefined);
  assert.equal(toDiskError(new SpillwayError('PATH_EXISTS', 'taken')), undefined);
});

test('a disk error names the path relative to the conversation, never a host path, and keeps errno and syscall in details', () => {
  const inside = toDiskError(systemError('ENOSPC', 'write', `${base}/outputs/sub/report.xlsx`), { base });
  assert.equal(inside?.code, 'DISK_FULL');
  assert.match(inside?.message ?? '', /The sandbox disk is full \(ENOSPC\) \(outputs\/sub\/report\.xlsx\); nothing was written\./);
  assert.deepEqual(inside?.details, { errno: 'ENOSPC', operation: 'write', syscall: 'write', path: 'outputs/sub/report.xlsx' });
  // Outside the conversation (or no base): no path at all.
  const outside = toDiskError(systemError('EROFS', 'open', '/etc/spillway/other'), { base });
  assert.doesNotMatch(JSON.stringify(outside?.toJSON()), /\/etc|\/srv/);
  // A fault coded below (atomic-write knew only the file name) is named again with the better path.
  const low = toDiskError(systemError('ENOSPC', 'write'), { path: 'report.xlsx' }) as SpillwayError;
  assert.equal(toDiskError(low, { path: 'outputs/report.xlsx' })?.details?.path, 'outputs/report.xlsx');
});

test('property: whatever the file under the conversation, the message and details hold no host path', () => {
  const segment = fc.stringMatching(/^[A-Za-z0-9 ._-]{1,20}$/).filter((name) => name !== '.' && name !== '..');
  fc.assert(
    fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom('ENOSPC', 'EROFS', 'EIO', 'EACCES', 'EDQUOT'), (segments, errno) => {
      const file = path.join(base, ...segments);
      const error = toDiskError(systemError(errno, 'open', file), { base }) as SpillwayError;
      const text = JSON.stringify(error.toJSON());
      assert.ok(!text.includes('/srv/spillway'), text);
      assert.equal(error.details?.path, segments.join('/'));
    }),
  );
});

test("a child process's strerror text (DuckDB) is read as the disk fault it names; other text is not", () => {
  const duckdb = new SpillwayError('SQL_ERROR', 'DuckDB error: IO Error: Could not write file "outputs/.x.parquet.1.ab.tmp": No space left on device');
  const fault = toDiskErrorFromText(duckdb, { path: 'outputs/x.parquet' });
  assert.equal(fault?.code, 'DISK_FULL');
  assert.equal(fault?.details?.path, 'outputs/x.parquet');
  assert.equal(toDiskErrorFromText(new Error('IO Error: Read-only file system'))?.code, 'SANDBOX_READ_ONLY');
  assert.equal(toDiskErrorFromText(new SpillwayError('SQL_ERROR', 'Binder Error: column "x" not found')), undefined);
});

test('withoutHostPaths turns the conversation folder into relative paths in message and details', () => {
  const error = new SpillwayError('WORKER_FAILED', `failed at ${base}/outputs/x.csv and ${base}`, { reason: `open '${base}/outputs/x.csv'` });
  const clean = withoutHostPaths(error, base);
  assert.equal(clean.message, 'failed at outputs/x.csv and .');
  assert.deepEqual(clean.details, { reason: "open 'outputs/x.csv'" });
});

test('a worker task that fails on the disk posts a coded error without host paths', async (t) => {
  const dir = await tempDir(t);
  const root = await SandboxRoot.open(path.join(dir, 'sandbox'));
  const conversation = root.conversation('c1');
  const run = workerTask(async () => {
    throw systemError('EIO', 'write', path.join(conversation.dir, 'outputs', '.x.csv.1.abc.tmp'));
  });
  const reply = await run({ output: { kind: 'sandbox', root: root.root, conversationId: 'c1', filename: 'x.csv', onExisting: 'rename' } });
  assert.equal(reply.ok, false);
  if (reply.ok) return;
  assert.equal(reply.error.code, 'DISK_IO');
  assert.ok(!JSON.stringify(reply.error).includes(dir), JSON.stringify(reply.error));
});

test('atomic writes on a real full disk and a real read-only folder: coded, path-free, and no file left behind', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'spillway-disk-'));
  const mounts: TestMount[] = [];
  // One hook, in order: unmount, then remove.
  t.after(async () => {
    for (const mount of mounts.reverse()) mount.unmount();
    await rm(dir, { recursive: true, force: true });
  });
  const full = path.join(dir, 'full');
  const readOnly = path.join(dir, 'read-only');
  await mkdir(full);
  await mkdir(readOnly);
  const small = mountSmallDisk(full, '64k');
  if (typeof small === 'string') {
    t.skip(small);
    return;
  }
  mounts.push(small);
  await writeFile(path.join(readOnly, 'kept.txt'), 'kept');
  const frozen = mountReadOnly(readOnly);
  if (typeof frozen === 'string') {
    t.skip(frozen);
    return;
  }
  mounts.push(frozen);

  const big = Buffer.alloc(256 * 1024, 1);
  const whole = await writeFileAtomic(path.join(full, 'big.bin'), big, { pinFolder: false }).catch((error: unknown) => error);
  assert.equal((whole as SpillwayError).code, 'DISK_FULL');
  assert.ok(!(whole as SpillwayError).message.includes(dir));
  assert.deepEqual(await readdir(full), []);

  const pending = await createPendingFile(path.join(full, 'streamed.bin'), { pinFolder: false });
  const streamed = await new Promise<unknown>((resolve) => {
    pending.stream.once('error', resolve);
    pending.stream.write(big, () => undefined);
  });
  assert.equal((streamed as NodeJS.ErrnoException).code, 'ENOSPC');
  const committed = await pending.commit().catch((error: unknown) => error);
  assert.equal((committed as SpillwayError).code, 'DISK_FULL');
  assert.deepEqual(await readdir(full), []);

  const refused = await writeFileAtomic(path.join(readOnly, 'new.txt'), 'x').catch((error: unknown) => error);
  assert.equal((refused as SpillwayError).code, 'SANDBOX_READ_ONLY');
  assert.ok(!JSON.stringify((refused as SpillwayError).toJSON()).includes(dir));
  assert.deepEqual(await readdir(readOnly), ['kept.txt']);
});
