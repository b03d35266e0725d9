import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { isRetryable } from '../../src/errors.js';
import { FilePool } from '../../src/files/pool/file-pool.js';
import { makeRows } from '../helpers/temp-host.js';
import { call, filesHost, ok, outputPath, readCsv, spillRows } from './helpers.js';

// Worker entries that crash for chosen output names (crash-exit.*, crash-throw.*, crash-late.*), given to the host like any custom writer.
const faultyWorkers = {
  csv: new URL('../fixtures/faulty-workers/csv.js', import.meta.url),
  xlsx: new URL('../fixtures/faulty-workers/xlsx.js', import.meta.url),
  docx: new URL('../fixtures/faulty-workers/docx.js', import.meta.url),
};

test('a worker that exits or throws fails that call only; the pool and the host keep serving', async (t) => {
  const env = await filesHost({ workers: { poolSize: 1, maxQueue: 8, taskTimeoutMs: 600000 } }, { workerModules: faultyWorkers });
  t.after(() => env.cleanup());
  const rows = makeRows(100);
  const source = await spillRows(env, rows);

  const exited = await call(env, 'export_table', { source, format: 'csv', filename: 'crash-exit.csv' });
  assert.equal(exited.isError, true);
  assert.equal(exited.error?.code, 'WORKER_FAILED');
  assert.match(exited.text, /csv worker failed .*no file was written.*retried/);

  const after = ok(await call(env, 'export_table', { source, format: 'csv', filename: 'fine.csv' }));
  assert.equal((await readCsv(outputPath(env, after.path))).length, 101);

  const threw = await call(env, 'export_table', { source, format: 'xlsx', filename: 'crash-throw.xlsx' });
  assert.equal(threw.error?.code, 'WORKER_FAILED');
  const again = ok(await call(env, 'export_table', { source, format: 'xlsx', filename: 'fine.xlsx' }));
  assert.equal(again.rows, 100);

  // A thread that dies with its temporary file open leaves nothing behind either.
  const late = await call(env, 'export_table', { source, format: 'xlsx', filename: 'crash-late.xlsx' });
  assert.equal(late.error?.code, 'WORKER_FAILED');
  const lateDocument = await call(env, 'build_document', {
    format: 'docx',
    filename: 'crash-late.docx',
    spec: { title: 't', blocks: [{ type: 'table', source }] },
  });
  assert.equal(lateDocument.error?.code, 'WORKER_FAILED');

  // A writer that throws a plain Error (as exceljs or docx would) gives a coded, non-retryable error with the library's message in details.
  const library = await call(env, 'export_table', { source, format: 'xlsx', filename: 'writer-throw.xlsx' });
  assert.equal(library.error?.code, 'EXPORT_FAILED', library.text);
  assert.equal(isRetryable('EXPORT_FAILED'), false);
  assert.match(library.text, /Building the XLSX file failed: .*No file was written.*columns.*range/);
  assert.deepEqual(library.error?.details, { format: 'xlsx', library: 'exceljs', reason: "test fault: Cannot read properties of undefined (reading 'model')" });

  assert.deepEqual((await readdir(outputPath(env, 'outputs'))).sort(), ['fine.csv', 'fine.xlsx']);
  const health = env.host.health().workers as { started: boolean };
  assert.equal(health.started, true);
});

test('a malformed task is a coded error, a timeout stops the thread, and the pool goes on', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(20));
  const pool = new FilePool({ poolSize: 1, maxQueue: 4, taskTimeoutMs: 600000 });
  t.after(() => pool.close());
  // What the writer throws on it is wrapped like a library's error: coded, not retryable, its message in details.reason.
  await assert.rejects(pool.run('csv', {}), (error: unknown) => (error as { code?: string }).code === 'EXPORT_FAILED');
  const task = {
    source: { kind: 'sandbox', root: env.sandboxRoot, principal: 'local', conversationId: 'c1', path: source },
    selection: { sort: [] },
    output: { kind: 'sandbox', root: env.sandboxRoot, principal: 'local', conversationId: 'c1', filename: 'ok.csv', onExisting: 'refuse' },
  };
  const result = await pool.run<{ rows: number }>('csv', task);
  assert.equal(result.rows, 20);

  // A 1 ms budget cannot cover starting a thread: the task is stopped and reported as a timeout.
  const impatient = new FilePool({ poolSize: 1, maxQueue: 4, taskTimeoutMs: 1 });
  t.after(() => impatient.close());
  await assert.rejects(
    impatient.run('xlsx', { ...task, output: { ...task.output, filename: 'late.xlsx' } }),
    (error: unknown) => (error as { code?: string }).code === 'TOOL_TIMEOUT',
  );

  // Refusing to overwrite is the worker's answer when asked to refuse a taken name.
  await assert.rejects(pool.run('csv', task), (error: unknown) => (error as { code?: string }).code === 'PATH_EXISTS');
});

test('a cancelled call (the client aborted) is reported as cancelled and leaves no file', async (t) => {
  const env = await filesHost();
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(50));
  const result = await env.host.execute({ name: 'export_table', arguments: { source, format: 'xlsx' } }, { conversationId: 'c1', signal: AbortSignal.abort() });
  assert.equal(result.error?.code, 'TOOL_FAILED');
  assert.match(result.text, /cancelled by the caller; no file was written/);
  assert.deepEqual(await readdir(outputPath(env, 'outputs')), []);
});

test('several exports at once on a two-thread pool all complete with the right files', async (t) => {
  const env = await filesHost({ workers: { poolSize: 2, maxQueue: 16, taskTimeoutMs: 600000 } });
  t.after(() => env.cleanup());
  const source = await spillRows(env, makeRows(2000));
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, index) =>
      call(env, 'export_table', { source, format: index % 2 === 0 ? 'csv' : 'xlsx', range: { start: index * 100, count: 100 }, filename: `part-${index}` }),
    ),
  );
  for (const [index, result] of results.entries()) {
    const value = ok(result);
    assert.equal(value.rows, 100);
    assert.equal(value.path, `outputs/part-${index}.${index % 2 === 0 ? 'csv' : 'xlsx'}`);
  }
  const first = await readCsv(outputPath(env, 'outputs/part-2.csv'));
  assert.equal(first[1]?.[0], '201');
});
