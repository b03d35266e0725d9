import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TurnQueue } from '../../src/util/turn-queue.js';

const cancelled = () => new Error('cancelled');

test('TurnQueue: at most `concurrency` turns at once, the rest in order', async () => {
  const turns = new TurnQueue(2);
  const first = await turns.take(undefined, cancelled);
  const second = await turns.take(undefined, cancelled);
  const order: string[] = [];
  const third = turns.take(undefined, cancelled).then((end) => (order.push('third'), end));
  const fourth = turns.take(undefined, cancelled).then((end) => (order.push('fourth'), end));
  assert.equal(turns.running, 2);
  assert.equal(turns.waiting, 2);
  first();
  const endThird = await third;
  assert.deepEqual(order, ['third']);
  second();
  const endFourth = await fourth;
  assert.deepEqual(order, ['third', 'fourth']);
  assert.equal(turns.waiting, 0);
  endThird();
  endFourth();
});

test('TurnQueue: a waiter whose signal aborts leaves at once and its turn passes on; an aborted signal does not stop a free turn', async () => {
  const turns = new TurnQueue(1);
  const already = AbortSignal.abort();
  const held = await turns.take(already, cancelled);
  const controller = new AbortController();
  const gone = turns.take(controller.signal, cancelled);
  const next = turns.take(undefined, cancelled);
  assert.equal(turns.waiting, 2);
  controller.abort();
  await assert.rejects(gone, /cancelled/);
  assert.equal(turns.waiting, 1);
  held();
  const end = await next;
  assert.equal(turns.running, 1);
  assert.equal(turns.waiting, 0);
  end();
});

test('TurnQueue: raising the limit starts waiters', async () => {
  const turns = new TurnQueue(1);
  const held = await turns.take(undefined, cancelled);
  const waiter = turns.take(undefined, cancelled);
  turns.concurrency = 2;
  const end = await waiter;
  assert.equal(turns.running, 2);
  held();
  end();
});
