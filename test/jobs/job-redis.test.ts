import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { JobConnections, subscribeWhenReady } from '../../src/jobs/job-redis.js';
import { silentLogger } from '../../src/log/logger.js';
import { redisUnavailableReason, startRedis } from '../helpers/redis-server.js';

/** The job components' Redis connections, with a real Redis. */

const skip = redisUnavailableReason();
if (skip !== undefined) console.log(`# skipping the job Redis connection tests: ${skip}`);

test('a subscription made while the connection is connected but not ready still hears what is published (ioredis would lose it)', { skip }, async (t) => {
  const redis = await startRedis(t);
  const connections = new JobConnections(redis.url, silentLogger());
  t.after(() => connections.stop());
  const subscriber = connections.open('blocking');
  // The instant a worker on a busy machine reaches its subscribe: connected, the ready check not yet answered.
  await once(subscriber, 'connect');
  assert.equal(subscriber.status, 'connect');
  await subscribeWhenReady(subscriber, 'cancel', 5_000);

  const publisher = new Redis(redis.url);
  t.after(() => publisher.disconnect());
  const heard = once(subscriber, 'message');
  assert.equal(await publisher.publish('cancel', 'job-1'), 1, 'one subscriber receives the message');
  assert.deepEqual(await heard, ['cancel', 'job-1']);
});
