import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpillwayError } from '../../src/errors.js';
import { AdmissionGate, type GateTimers } from '../../src/util/admission-gate.js';

/** Timers a test fires by hand: a deadline passes when the test says so, never by waiting. */
function manualTimers(): GateTimers & { fire(): void; pending(): number } {
  const timers = new Map<number, () => void>();
  let next = 1;
  return {
    setTimeout: (callback) => {
      timers.set(next, callback);
      return next++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    fire: () => {
      const due = [...timers.values()];
      timers.clear();
      for (const callback of due) callback();
    },
    pending: () => timers.size,
  };
}

function gate(limits = { running: 2, waiting: 1, waitMs: 30_000 }, timers = manualTimers()) {
  return { timers, gate: new AdmissionGate({ name: 'exports', noun: 'export', limits: () => limits, timers }) };
}

function codeAndDetails(error: unknown): unknown {
  assert.ok(SpillwayError.is(error));
  return { code: error.code, details: error.details };
}

test('the gate lets in `running` at once, lines up `waiting`, and refuses the next at once with BUSY and how busy it is', async () => {
  const { gate: exports } = gate();
  const first = await exports.admit();
  const second = await exports.admit();
  let thirdIn = false;
  const third = exports.admit().then((release) => {
    thirdIn = true;
    return release;
  });
  const refusal = await exports.admit().catch((error: unknown) => error);
  assert.deepEqual(codeAndDetails(refusal), {
    code: 'BUSY',
    details: { queue: 'exports', running: 2, waiting: 1, limit: 3, reason: 'full' },
  });
  assert.match((refusal as Error).message, /3 exports running or waiting, limit 3; retry in a few seconds/);
  assert.equal(thirdIn, false);
  first();
  const releaseThird = await third;
  assert.equal(thirdIn, true);
  second();
  releaseThird();
  const stats = exports.stats();
  assert.deepEqual(
    { running: stats.running, waiting: stats.waiting, admitted: stats.admitted, refused: stats.refused, peak: stats.peak },
    { running: 0, waiting: 0, admitted: 3, refused: { full: 1, deadline: 0 }, peak: { running: 2, waiting: 1 } },
  );
});

test('a call still waiting at its deadline is refused with BUSY (reason deadline) and leaves the line', async () => {
  const { gate: exports, timers } = gate({ running: 1, waiting: 4, waitMs: 30_000 });
  const holder = await exports.admit();
  const waiting = exports.admit().catch((error: unknown) => error);
  assert.equal(exports.stats().waiting, 1);
  timers.fire();
  const refusal = await waiting;
  assert.deepEqual(codeAndDetails(refusal), { code: 'BUSY', details: { queue: 'exports', running: 1, waiting: 1, limit: 5, reason: 'deadline' } });
  assert.match((refusal as Error).message, /waited 30,000 ms \(server\.queueWaitMs\)/);
  assert.equal(exports.stats().waiting, 0);
  assert.deepEqual(exports.stats().refused, { full: 0, deadline: 1 });
  holder();
  // The slot is free again; the deadline timer of an admitted call is cleared.
  const next = await exports.admit();
  assert.equal(timers.pending(), 0);
  next();
});

test('a waiting call whose signal aborts leaves the line at once; the slot goes to the next in order', async () => {
  const { gate: exports, timers } = gate({ running: 1, waiting: 3, waitMs: 30_000 });
  const holder = await exports.admit();
  const controller = new AbortController();
  const cancelled = exports.admit({ signal: controller.signal }).catch((error: unknown) => error);
  const order: string[] = [];
  const later = exports.admit().then((release) => {
    order.push('later');
    return release;
  });
  controller.abort();
  assert.equal(((await cancelled) as SpillwayError).code, 'TOOL_FAILED');
  assert.equal(exports.stats().waiting, 1);
  holder();
  (await later)();
  assert.deepEqual(order, ['later']);
  assert.equal(timers.pending(), 0);
});

test('onWaiting is told how many are ahead; run() frees the slot when the work fails', async () => {
  const { gate: exports } = gate({ running: 1, waiting: 2, waitMs: 30_000 });
  const holder = await exports.admit();
  const ahead: number[] = [];
  const queued = exports.run(async () => 'done', { onWaiting: (count) => ahead.push(count) });
  assert.deepEqual(ahead, [1]);
  holder();
  assert.equal(await queued, 'done');
  await assert.rejects(
    exports.run(async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(exports.stats().running, 0);
});

test('a refusal keeps the code its queue was given (SQL_BUSY, SCRIPT_BUSY) and names the configuration keys', async () => {
  const scripts = new AdmissionGate({
    name: 'scripts',
    noun: 'script',
    code: 'SCRIPT_BUSY',
    keys: 'workers.poolSize, workers.maxQueue',
    limits: () => ({ running: 1, waiting: 0, waitMs: 1000 }),
    timers: manualTimers(),
  });
  const holder = await scripts.admit();
  const refusal = await scripts.admit().catch((error: unknown) => error);
  assert.equal((refusal as SpillwayError).code, 'SCRIPT_BUSY');
  assert.match((refusal as Error).message, /1 script running or waiting, limit 1 \(workers\.poolSize, workers\.maxQueue\)/);
  holder();
});
