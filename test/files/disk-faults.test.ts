import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ExecuteResult } from '../../src/host/host.js';
import { mountReadOnly, mountSmallDisk, type TestMount } from '../helpers/mounts.js';
import { makeRows, type TempHost } from '../helpers/temp-host.js';
import { call, filesHost, spillRows } from './helpers.js';

// The real csv and docx writers, on a disk whose writes fail with EIO for outputs named "disk-eio.*".
const faultyWorkers = {
  csv: new URL('../fixtures/faulty-workers/csv.js', import.meta.url),
  docx: new URL('../fixtures/faulty-workers/docx.js', import.meta.url),
};

/** A host whose mounts are undone before its folder is removed (one hook, in order). */
async function hostWithMounts(t: TestContext): Promise<{ env: TempHost; mounts: TestMount[] }> {
  const env = await filesHost({}, { workerModules: faultyWorkers });
  const mounts: TestMount[] = [];
  t.after(async () => {
    for (const mount of mounts.reverse()) mount.unmount();
    await env.cleanup();
  });
  return { env, mounts };
}

/** The call failed with `code`, and neither its text nor its error names a host folder. */
function assertCodedWithoutHostPath(env: TempHost, result: ExecuteResult, code: string): void {
  assert.equal(result.isError, true, result.text);
  assert.equal(result.error?.code, code, result.text);
  const seen = `${result.text}\n${JSON.stringify(result.error)}`;
  assert.ok(!seen.includes(env.dir) && !seen.includes(env.sandboxRoot), `a host path in: ${seen}`);
}

async function folderOf(env: TempHost, folder: 'outputs' | 'args' | 'results', conversationId = 'c1'): Promise<string> {
  const sandbox = env.host.sandbox.conversation(conversationId);
  await sandbox.ensure();
  return sandbox.folderPath(folder);
}

test('exports (CSV, XLSX, Parquet), documents, charts and attach_file on a full disk fail with DISK_FULL, a relative path and no file left', async (t) => {
  const { env, mounts } = await hostWithMounts(t);
  const source = await spillRows(env, makeRows(3000));
  const outputs = await folderOf(env, 'outputs');
  const small = mountSmallDisk(outputs, '16k');
  if (typeof small === 'string') return t.skip(small);
  mounts.push(small);

  const csv = await call(env, 'export_table', { source, format: 'csv', filename: 'all.csv' });
  assertCodedWithoutHostPath(env, csv, 'DISK_FULL');
  assert.equal(csv.error?.details?.path, 'outputs/all.csv');
  assertCodedWithoutHostPath(env, await call(env, 'export_table', { source, format: 'xlsx', filename: 'all.xlsx' }), 'DISK_FULL');
  const document = await call(env, 'build_document', { format: 'docx', spec: { title: 'All', blocks: [{ type: 'table', source }] } });
  assertCodedWithoutHostPath(env, document, 'DISK_FULL');
  const parquet = await call(env, 'export_table', { source, format: 'parquet', filename: 'all.parquet' });
  assertCodedWithoutHostPath(env, parquet, 'DISK_FULL');
  assert.equal(parquet.error?.details?.path, 'outputs/all.parquet');
  const chart = await call(env, 'build_chart', {
    source,
    range: { start: 0, count: 200 },
    spec: { mark: 'bar', encoding: { x: { field: 'name', type: 'nominal' }, y: { field: 'id', type: 'quantitative' } } },
  });
  assertCodedWithoutHostPath(env, chart, 'DISK_FULL');
  const attached = await call(env, 'attach_file', { path: source });
  assertCodedWithoutHostPath(env, attached, 'DISK_FULL');
  assert.match(attached.text, /outputs\//);
  assert.deepEqual(await readdir(outputs), []);
});

test('a read-only outputs/ or args/ fails with SANDBOX_READ_ONLY and no file left', async (t) => {
  const { env, mounts } = await hostWithMounts(t);
  const source = await spillRows(env, makeRows(50));
  const outputs = await folderOf(env, 'outputs');
  const args = await folderOf(env, 'args');
  for (const folder of [outputs, args]) {
    const frozen = mountReadOnly(folder);
    if (typeof frozen === 'string') return t.skip(frozen);
    mounts.push(frozen);
  }
  assertCodedWithoutHostPath(env, await call(env, 'export_table', { source, format: 'csv' }), 'SANDBOX_READ_ONLY');
  assertCodedWithoutHostPath(env, await call(env, 'attach_file', { path: source }), 'SANDBOX_READ_ONLY');
  const written = await call(env, 'write_file', { path: 'args/next.json', content: { a: 1 } });
  assertCodedWithoutHostPath(env, written, 'SANDBOX_READ_ONLY');
  assert.match(written.text, /args\/next\.json/);
  assert.deepEqual(await readdir(outputs), []);
  assert.deepEqual(await readdir(args), []);
});

test('an I/O error while a worker writes (EIO) is DISK_IO, naming the output, with no partial file', async (t) => {
  const { env } = await hostWithMounts(t);
  const source = await spillRows(env, makeRows(500));
  const exported = await call(env, 'export_table', { source, format: 'csv', filename: 'disk-eio.csv' });
  assertCodedWithoutHostPath(env, exported, 'DISK_IO');
  assert.match(exported.text, /The file system failed to write \(EIO\) \(outputs\/disk-eio\.csv\); nothing was written\./);
  const document = await call(env, 'build_document', { format: 'docx', filename: 'disk-eio.docx', spec: { title: 'T', blocks: [{ type: 'table', source }] } });
  assertCodedWithoutHostPath(env, document, 'DISK_IO');
  assert.deepEqual(await readdir(await folderOf(env, 'outputs')), []);
});

test('a spill on a full disk still answers, and says DISK_FULL instead of a path', async (t) => {
  const { env, mounts } = await hostWithMounts(t);
  const results = await folderOf(env, 'results', 'c2');
  const small = mountSmallDisk(results, '8k');
  if (typeof small === 'string') return t.skip(small);
  mounts.push(small);
  env.host.registerTool({ name: 'many', description: 'many rows', inputSchema: { type: 'object' }, handler: () => ({ value: makeRows(2000) }) });
  const result = await call(env, 'many', {}, 'c2');
  assert.equal(result.isError, false);
  assert.equal(result.spill, undefined);
  assert.match(result.text, /could not be saved to a file \(DISK_FULL: the sandbox disk is full\)/);
  assert.ok(!result.text.includes(env.dir));
  assert.deepEqual(await readdir(results), []);
});

test("a tool's own file-system failure is coded too, and host paths are cut from any tool error", async (t) => {
  const { env } = await hostWithMounts(t);
  const dir = env.host.sandbox.conversation('c1').dir;
  env.host.registerTool({
    name: 'raw_fs',
    description: 'throws what fs would',
    inputSchema: { type: 'object' },
    handler: () => {
      throw Object.assign(new Error(`EIO: i/o error, open '${path.join(dir, 'outputs', 'x.bin')}'`), {
        code: 'EIO',
        errno: -5,
        syscall: 'open',
        path: path.join(dir, 'outputs', 'x.bin'),
      });
    },
  });
  env.host.registerTool({
    name: 'says_path',
    description: 'names a host path',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error(`could not use ${path.join(dir, 'results', 'y.json')}`);
    },
  });
  const raw = await call(env, 'raw_fs', {});
  assertCodedWithoutHostPath(env, raw, 'DISK_IO');
  assert.equal(raw.error?.details?.path, 'outputs/x.bin');
  const named = await call(env, 'says_path', {});
  assertCodedWithoutHostPath(env, named, 'TOOL_FAILED');
  assert.match(named.text, /could not use results\/y\.json/);
});
