import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { defineTool } from '../../src/host/define-tool.js';
import type { Host } from '../../src/host/host.js';
import { spawnChild } from '../helpers/child-process.js';
import { startRedis } from '../helpers/redis-server.js';
import { makeRows, tempHost } from '../helpers/temp-host.js';

/** A replica on a fresh sandbox and Redis, worker processes and what the job tests look at. */

export const rowsTool = defineTool({
  name: 'rows',
  description: 'Returns n rows.',
  inputSchema: Type.Object({ n: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  handler: async (args) => ({ value: makeRows(args.n) }),
});

const workerFixture = new URL('../fixtures/job-worker.js', import.meta.url);

export interface Fleet {
  host: Host;
  redisUrl: string;
  keyPrefix: string;
  queue: Queue;
  source: string;
}

/** A replica (host) on a fresh sandbox and Redis, with one spilled table in conversation "c". */
export async function fleet(
  t: TestContext,
  jobs: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  options: Parameters<typeof tempHost>[1] = {},
): Promise<Fleet> {
  const redis = await startRedis(t);
  const keyPrefix = 'jobs-test:';
  // A short build limit bounds a graceful close that waits for running jobs.
  const temp = await tempHost({ coordination: { redis: { url: redis.url, keyPrefix }, jobs }, workers: { taskTimeoutMs: 30_000 }, ...extra }, options);
  t.after(() => temp.cleanup());
  temp.host.registerTool(rowsTool);
  const spilled = await temp.host.execute({ name: 'rows', arguments: { n: 300 } }, { conversationId: 'c' });
  assert.ok(spilled.spill !== undefined, spilled.text);
  // The test's own view of the queue, on a connection that never reconnects (Redis dies first at the end).
  const connection = new Redis({ host: '127.0.0.1', port: redis.port, retryStrategy: () => null, maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  const queue = new Queue('file-jobs', { connection, prefix: 'jobs-test' });
  queue.on('error', () => undefined);
  t.after(async () => {
    // Closed first: the queue's close then fails at once instead of waiting on a Redis that may be gone.
    connection.disconnect();
    await queue.close().catch(() => undefined);
  });
  return { host: temp.host, redisUrl: redis.url, keyPrefix, queue, source: spilled.spill.path };
}

export async function jobCounts(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children');
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export async function outputs(host: Host): Promise<string[]> {
  return (await readdir(host.sandbox.conversation('c').folderPath('outputs')).catch(() => [] as string[])).sort();
}

/** Starts a worker process (the fixture) and waits for its "ready" line. */
export async function startWorker(t: TestContext, f: Fleet, options: { dying?: boolean; lockMs?: number } = {}): Promise<ChildProcess> {
  const env = {
    ...process.env,
    SPILLWAY_TEST_WORKER: JSON.stringify({
      redisUrl: f.redisUrl,
      keyPrefix: f.keyPrefix,
      sandboxRoot: f.host.sandbox.root,
      lockMs: options.lockMs ?? 1000,
      dying: options.dying === true,
    }),
  };
  const child = spawnChild(t, process.execPath, [workerFixture.pathname], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'ready') resolve();
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was ready`)));
  });
  return child;
}

export function csvRows(text: string): string[] {
  return text
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/);
}
