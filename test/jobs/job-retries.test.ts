import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Host } from '../../src/host/host.js';
import { redisUnavailableReason } from '../helpers/redis-server.js';
import { tempHost } from '../helpers/temp-host.js';
import { waitFor } from '../helpers/wait-for.js';
import { fleet, jobCounts, outputs, startWorker, type Fleet } from './job-fleet.js';

/**
 * The same export asked again finds the job already on its way (its id comes
 * from what it builds): a client retrying after its replica died, or asking
 * twice at once, gets the one file, not "name (2)". Real Redis, real worker processes.
 */

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the job retry tests: ${skip}`);
const options = { skip, timeout: 120_000 };

/** The call a client makes (and makes again): the fleet's spilled table as CSV. */
const exportCall = (f: Fleet, filename: string) => ({ name: 'export_table', arguments: { source: f.source, format: 'csv', filename } });

function queuedOnce(host: Host): Promise<void> {
  return new Promise((resolve) => host.on('file-job', (event) => event.phase === 'queued' && resolve()));
}

/** A second replica on the same sandbox folder and Redis (what a load balancer sends a client to after a replica died). */
async function secondReplica(t: TestContext, f: Fleet): Promise<Host> {
  const other = await tempHost({
    sandbox: { root: f.host.sandbox.root },
    coordination: { redis: { url: f.redisUrl, keyPrefix: f.keyPrefix }, jobs: { onReplicas: false } },
    workers: { taskTimeoutMs: 30_000 },
  });
  t.after(() => other.cleanup());
  return other.host;
}

test('the same export asked twice at once is one job: both calls get the one file', options, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  const call = exportCall(f, 'twice.csv');
  let queued = 0;
  const bothQueued = new Promise<void>((resolve) =>
    f.host.on('file-job', (event) => {
      if (event.phase === 'queued' && ++queued === 2) resolve();
    }),
  );
  const first = f.host.execute(call, { conversationId: 'c' });
  const second = f.host.execute(call, { conversationId: 'c' });
  await bothQueued;
  assert.equal(await jobCounts(f.queue), 1, 'one job for the two calls');
  await startWorker(t, f);
  const results = await Promise.all([first, second]);
  for (const result of results) assert.equal(result.isError, false, result.text);
  assert.deepEqual(await outputs(f.host), ['twice.csv']);
  // Asked once more after both were answered: a new request, a new file.
  const third = await f.host.execute(call, { conversationId: 'c' });
  assert.equal(third.isError, false, third.text);
  assert.deepEqual(await outputs(f.host), ['twice (2).csv', 'twice.csv']);
});

test('asked again on another replica after its own shut down, the export waits for the job still queued and gets its one file', options, async (t) => {
  const f = await fleet(t, { onReplicas: false });
  const call = exportCall(f, 'once.csv');
  const queued = queuedOnce(f.host);
  const first = f.host.execute(call, { conversationId: 'c' });
  await queued;
  await f.host.close();
  const answer = await first;
  assert.equal(answer.error?.code, 'WORKER_FAILED', answer.text);
  assert.match(answer.text, /Asking again with the same arguments waits for that job/);
  const other = await secondReplica(t, f);
  const otherQueued = queuedOnce(other);
  const again = other.execute(call, { conversationId: 'c' });
  await otherQueued;
  assert.equal(await jobCounts(f.queue), 1, 'the retry joined the job instead of adding one');
  await startWorker(t, f);
  const result = await again;
  assert.equal(result.isError, false, result.text);
  assert.deepEqual(await outputs(other), ['once.csv']);
});

test(
  "a job built after its caller's replica shut down answers the retry with its file; once that file is removed, the retry builds it again",
  options,
  async (t) => {
    const f = await fleet(t, { onReplicas: false });
    const call = exportCall(f, 'late.csv');
    const queued = queuedOnce(f.host);
    const first = f.host.execute(call, { conversationId: 'c' });
    await queued;
    await f.host.close();
    await first;
    await startWorker(t, f);
    // Nobody waits for it now: its record stays "completed" (a caller removes its job once answered).
    await waitFor(async () => (await f.queue.getCompletedCount()) === 1, 'the orphaned job to be built');
    const other = await secondReplica(t, f);
    const again = await other.execute(call, { conversationId: 'c' });
    assert.equal(again.isError, false, again.text);
    assert.match(again.text, /outputs\/late\.csv/);
    assert.deepEqual(await outputs(other), ['late.csv'], 'the file built for the first call, not a second one');
    await rm(path.join(other.sandbox.conversation('c').folderPath('outputs'), 'late.csv'));
    const rebuilt = await other.execute(call, { conversationId: 'c' });
    assert.equal(rebuilt.isError, false, rebuilt.text);
    assert.deepEqual(await outputs(other), ['late.csv'], 'built again: the earlier answer named a file that is gone');
  },
);
