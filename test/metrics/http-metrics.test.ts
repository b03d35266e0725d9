import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defineTool } from '../../src/host/define-tool.js';
import { startHttpFront, type HttpFront } from '../../src/mcp/http-server.js';
import { startRetention } from '../../src/retention/start-retention.js';
import { makeRows, tempHost, type TempHost } from '../helpers/temp-host.js';
import { parsePrometheusText, sample, scrape } from '../helpers/prometheus-text.js';

const rowsTool = defineTool({
  name: 'rows',
  description: 'Returns n rows.',
  inputSchema: Type.Object({ n: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  handler: async (args) => ({ value: makeRows(args.n) }),
});

async function serve(t: { after(fn: () => Promise<void> | void): void }): Promise<{ env: TempHost; front: HttpFront; client: Client; base: string }> {
  const env = await tempHost();
  t.after(() => env.cleanup());
  env.host.registerTool(rowsTool);
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const client = new Client({ name: 'metrics-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(front.url)));
  t.after(() => client.close());
  return { env, front, client, base: front.url.replace(/\/mcp$/, '') };
}

test('/metrics counts calls by tool and outcome, errors by code, spill files and bytes, export jobs and sessions', async (t) => {
  const { env, client, base } = await serve(t);

  const spilled = await client.callTool({ name: 'rows', arguments: { n: 200 } });
  const spill = (spilled._meta as Record<string, { path: string; bytes: number }> | undefined)?.['spillway/spill'];
  assert.ok(spill !== undefined, 'the 200 rows spilled');
  await client.callTool({ name: 'rows', arguments: { n: 1 } });
  await client.callTool({ name: 'rows', arguments: { n: 'many' } });
  await client.callTool({ name: 'no_such_tool_from_a_model', arguments: {} });
  const exported = await client.callTool({ name: 'export_table', arguments: { source: spill.path, format: 'csv' } });
  assert.notEqual(exported.isError, true, JSON.stringify(exported.content));
  const failedExport = await client.callTool({ name: 'export_table', arguments: { source: spill.path, format: 'csv', columns: ['no_such_column'] } });
  assert.equal(failedExport.isError, true);

  const metrics = await scrape(`${base}/metrics`);
  assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool: 'rows', outcome: 'ok' }), 2);
  assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool: 'rows', outcome: 'error' }), 1);
  assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool: '(unknown)', outcome: 'error' }), 1, 'a tool name a model made up is not a label');
  assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool: 'export_table', outcome: 'ok' }), 1);
  assert.equal(sample(metrics, 'spillway_tool_calls_total', { tool: 'export_table', outcome: 'error' }), 1);
  assert.equal(sample(metrics, 'spillway_tool_errors_total', { code: 'INVALID_ARGUMENTS' }), 1);
  assert.equal(sample(metrics, 'spillway_tool_errors_total', { code: 'TOOL_NOT_FOUND' }), 1);
  assert.equal(sample(metrics, 'spillway_tool_errors_total', { code: 'UNKNOWN_COLUMN' }), 1);
  assert.equal(sample(metrics, 'spillway_tool_call_duration_seconds_count', { outcome: 'ok' }), 3);

  // The one spill: its data file; the spill ref's bytes are what the writer counted.
  assert.equal(sample(metrics, 'spillway_spill_files_total'), 1);
  assert.equal(sample(metrics, 'spillway_spill_bytes_total'), spill.bytes);

  assert.equal(sample(metrics, 'spillway_file_jobs_total', { kind: 'csv', outcome: 'ok' }), 1);
  assert.equal(sample(metrics, 'spillway_file_jobs_total', { kind: 'csv', outcome: 'failed' }), 1);
  assert.equal(sample(metrics, 'spillway_file_job_errors_total', { kind: 'csv', code: 'UNKNOWN_COLUMN' }), 1);
  assert.equal(sample(metrics, 'spillway_file_job_run_seconds_count', { kind: 'csv', outcome: 'ok' }), 1);
  assert.equal(sample(metrics, 'spillway_file_jobs_queued'), 0);
  assert.equal(sample(metrics, 'spillway_file_jobs_running'), 0);
  assert.equal(sample(metrics, 'spillway_sessions'), 1);
  assert.ok(metrics.has('process_resident_memory_bytes'), 'process metrics are in the same registry');
  assert.equal(env.host.listTools().length > 0, true);
});

test('two fronts in one process keep separate counts (a registry per front, not the global one)', async (t) => {
  const first = await serve(t);
  const second = await serve(t);
  await first.client.callTool({ name: 'rows', arguments: { n: 1 } });
  await first.client.callTool({ name: 'rows', arguments: { n: 1 } });
  await second.client.callTool({ name: 'rows', arguments: { n: 1 } });
  assert.equal(sample(await scrape(`${first.base}/metrics`), 'spillway_tool_calls_total', { tool: 'rows', outcome: 'ok' }), 2);
  assert.equal(sample(await scrape(`${second.base}/metrics`), 'spillway_tool_calls_total', { tool: 'rows', outcome: 'ok' }), 1);
});

test('/metrics counts sweeps and the files they removed', async (t) => {
  let now = new Date('2026-03-01T00:00:00Z');
  const env = await tempHost({}, { now: () => now });
  t.after(() => env.cleanup());
  env.host.registerTool(rowsTool);
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp' });
  t.after(() => front.close());
  const retention = startRetention(env.host, { now: () => now });
  t.after(() => retention.stop());
  const first = await env.host.execute({ name: 'rows', arguments: { n: 200 } }, { conversationId: 'c1' });
  assert.ok(first.spill !== undefined);
  // The files are dated by the file system; move the sweep's clock far past the retention.
  now = new Date(Date.now() + 30 * 86_400_000);
  const last = await retention.scheduler.runNow();
  assert.equal(last.outcome, 'ok');
  const metrics = await scrape(front.url.replace(/\/mcp$/, '/metrics'));
  assert.equal(sample(metrics, 'spillway_sweeps_total', { outcome: 'ok' }), 1);
  assert.equal(sample(metrics, 'spillway_sweep_files_removed_total'), last.deleted?.files ?? -1);
  assert.ok((last.deleted?.files ?? 0) >= 2, 'the spill and its metadata went');
  assert.equal(sample(metrics, 'spillway_sweep_bytes_removed_total'), last.deleted?.bytes ?? -1);
});

test('/healthz proves the sandbox takes a write and runs the registered checks; 503 when one fails', async (t) => {
  const { env, base } = await serve(t);
  const healthy = await fetch(`${base}/healthz`);
  assert.equal(healthy.status, 200);
  const body = (await healthy.json()) as { status: string; checks: Record<string, { ok: boolean; error?: string }> };
  assert.equal(body.status, 'ok');
  assert.deepEqual(body.checks.sandbox, { ok: true });

  env.host.setHealthCheck('store', () => Promise.reject(new Error('the store does not answer')));
  const failing = await fetch(`${base}/healthz`);
  assert.equal(failing.status, 503);
  const failed = (await failing.json()) as { status: string; checks: Record<string, { ok: boolean; error?: string }> };
  assert.equal(failed.status, 'failing');
  assert.deepEqual(failed.checks.store, { ok: false, error: 'the store does not answer' });
  assert.equal(failed.checks.sandbox?.ok, true);

  env.host.setHealthCheck('store', () => Promise.resolve());
  // The volume goes away: the write probe fails, not only a stat.
  await rm(env.sandboxRoot, { recursive: true, force: true });
  const noVolume = await fetch(`${base}/healthz`);
  assert.equal(noVolume.status, 503);
  const gone = (await noVolume.json()) as { checks: Record<string, { ok: boolean; error?: string }> };
  assert.equal(gone.checks.sandbox?.ok, false);
  assert.match(gone.checks.sandbox?.error ?? '', /ENOENT/);
});

test('/readyz is 503 while starting or shutting down and 200 in between', async (t) => {
  const env = await tempHost();
  t.after(() => env.cleanup());
  const front = await startHttpFront(env.host, { host: '127.0.0.1', port: 0, path: '/mcp', ready: false });
  t.after(() => front.close());
  const readyz = front.url.replace(/\/mcp$/, '/readyz');
  assert.equal((await fetch(readyz)).status, 503);
  front.setReady(true);
  const ready = await fetch(readyz);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { ready: true });
  front.setReady(false);
  const stopping = await fetch(readyz);
  assert.equal(stopping.status, 503);
  assert.match(JSON.stringify(await stopping.json()), /shutting down/);
});

test('the Prometheus parser reads labels and values as written', () => {
  const samples = parsePrometheusText('# HELP x y\n# TYPE x counter\nx{a="1",b="two"} 3\ny 4.5\n');
  assert.equal(sample(samples, 'x', { a: '1', b: 'two' }), 3);
  assert.equal(sample(samples, 'y'), 4.5);
  assert.equal(sample(samples, 'x', { a: '1' }), 0);
});
