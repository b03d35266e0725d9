import { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { redactUrl } from '../coordination/redis-coordinator.js';

/**
 * A Redis connection for BullMQ. `blocking` connections (workers, queue
 * events) wait on Redis and must retry forever (BullMQ requires
 * maxRetriesPerRequest null); the producer's fails a command at once while
 * Redis is away, so a call gets COORDINATION_UNAVAILABLE instead of waiting.
 * Errors are logged once per change, not on every reconnect attempt.
 */
export function jobConnection(url: string, role: 'producer' | 'blocking', logger: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: role === 'producer' ? 1 : null,
    enableOfflineQueue: role !== 'producer',
    connectTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const where = redactUrl(url);
  let lastError: string | undefined;
  redis.on('error', (error: Error) => {
    if (error.message === lastError) return;
    lastError = error.message;
    logger.warn({ err: error, redis: where, role }, 'file jobs: Redis error');
  });
  redis.on('ready', () => {
    if (lastError !== undefined) logger.info({ redis: where, role }, 'file jobs: Redis connected again');
    lastError = undefined;
  });
  return redis;
}

/** Resolves once the connection is ready, or rejects after `timeoutMs`. */
export async function whenReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`not connected within ${timeoutMs} ms`)), timeoutMs);
    const onReady = () => done();
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      if (error === undefined) resolve();
      else reject(error);
    };
    redis.on('ready', onReady);
  });
}

/**
 * Waits for `closing` at most `ms` (a BullMQ close waits on Redis, which may
 * be gone): the caller then drops its connections, and closing never hangs.
 */
export async function settleWithin(closing: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closing.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
