import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UpstreamLiveness, type LivenessSettings } from '../../src/upstream/upstream-liveness.js';
import { ManualTimers } from '../helpers/manual-timers.js';

/** A liveness check whose pings the test answers (or not) by hand. */
function harness(settings: Partial<LivenessSettings> = {}) {
  const timers = new ManualTimers();
  const pings: { answer(): void; fail(message: string): void; signal: AbortSignal }[] = [];
  const deaths: string[] = [];
  const liveness = new UpstreamLiveness({
    settings: { pingIntervalMs: 1000, pingTimeoutMs: 500, maxFailures: 3, ...settings },
    timers,
    ping: (signal) =>
      new Promise<void>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason as Error));
        pings.push({ answer: resolve, fail: (message) => reject(new Error(message)), signal });
      }),
    onDead: (reason) => deaths.push(reason),
  });
  return { timers, pings, deaths, liveness };
}

/** Lets the ping's settlement run (a few microtasks), without waiting for time. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('an idle connection is pinged every pingIntervalMs; an answer clears the count', async () => {
  const { timers, pings, deaths } = harness();
  assert.equal(await timers.fire('ping'), 1000);
  assert.equal(await timers.fire('ping-timeout'), 500);
  await timers.fire('ping');
  await timers.fire('ping-timeout');
  await timers.fire('ping');
  pings[2]?.answer();
  // Two misses, then an answer: the count starts again, so three more misses are needed.
  for (let miss = 0; miss < 2; miss += 1) {
    await timers.fire('ping');
    await timers.fire('ping-timeout');
  }
  assert.deepEqual(deaths, []);
  await timers.fire('ping');
  await timers.fire('ping-timeout');
  await settle();
  assert.equal(deaths.length, 1);
  assert.match(deaths[0] ?? '', /did not answer 3 pings in a row \(last: no answer to a ping within 500 ms \(upstream\.pingTimeoutMs\)\)/);
  assert.deepEqual(timers.kinds(), [], 'a dead connection schedules nothing more');
});

test('a call in flight is not idle: no ping until it ends; a call timeout pings at once', async () => {
  const { timers, pings, liveness } = harness();
  liveness.callStarted();
  assert.deepEqual(timers.kinds(), [], 'the idle timer is stopped while a call runs');
  liveness.callAnswered();
  assert.deepEqual(timers.kinds(), ['ping']);
  liveness.callStarted();
  liveness.callTimedOut();
  assert.equal(pings.length, 1, 'pinged right after the timeout');
  assert.deepEqual(timers.kinds(), ['ping-timeout']);
  pings[0]?.answer();
  await settle();
  assert.deepEqual(timers.kinds(), ['ping'], 'back to idle pings');
});

test('maxFailures call timeouts in a row declare the upstream dead even when pings are answered; an answered call resets them', async () => {
  const { pings, deaths, liveness } = harness({ maxFailures: 2 });
  liveness.callStarted();
  liveness.callTimedOut();
  pings[0]?.answer();
  await settle();
  liveness.callStarted();
  liveness.callAnswered();
  liveness.callStarted();
  liveness.callTimedOut();
  pings[1]?.answer();
  await settle();
  assert.deepEqual(deaths, [], 'the answered call in between reset the count');
  liveness.callStarted();
  liveness.callTimedOut();
  assert.deepEqual(deaths, ['2 calls in a row timed out']);
});

test('pingIntervalMs 0 turns idle pings off; stop() cancels everything', async () => {
  const off = harness({ pingIntervalMs: 0 });
  assert.deepEqual(off.timers.kinds(), []);
  off.liveness.callStarted();
  off.liveness.callTimedOut();
  assert.equal(off.pings.length, 1, 'a timeout is still followed by a ping');
  const on = harness();
  assert.deepEqual(on.timers.kinds(), ['ping']);
  on.liveness.stop();
  assert.deepEqual(on.timers.kinds(), []);
});
