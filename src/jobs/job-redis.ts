import { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import { redactUrl } from '../util/redact-url.js';

/**
 * The Redis connections of one job component (the queue of a replica, a
 * worker). `blocking` connections (workers, queue events) wait on Redis and
 * must retry forever (BullMQ requires maxRetriesPerRequest null); the
 * producer's fails a command at once while Redis is away, so a call gets
 * COORDINATION_UNAVAILABLE instead of waiting. Errors are logged once per
 * change, not on every reconnect attempt.
 *
 * BullMQ copies a connection it is given (a worker's blocking client): the
 * copies share the retry strategy, so `stop` makes every one of them, ours and
 * BullMQ's, give up reconnecting. Without that, a copy left reconnecting to a
 * Redis that is gone would keep the process alive after it closed.
 */
export class JobConnections {
  private stopped = false;
  private readonly opened: Redis[] = [];
  private readonly where: string;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {
    this.where = redactUrl(url);
  }

  open(role: 'producer' | 'blocking'): Redis {
    const redis = new Redis(this.url, {
      maxRetriesPerRequest: role === 'producer' ? 1 : null,
      enableOfflineQueue: role !== 'producer',
      connectTimeout: 5_000,
      retryStrategy: (attempt) => (this.stopped ? null : Math.min(attempt * 200, 2_000)),
    });
    let lastError: string | undefined;
    redis.on('error', (error: Error) => {
      if (error.message === lastError || this.stopped) return;
      lastError = error.message;
      this.logger.warn({ err: error, redis: this.where, role }, 'file jobs: Redis error');
    });
    redis.on('ready', () => {
      if (lastError !== undefined) this.logger.info({ redis: this.where, role }, 'file jobs: Redis connected again');
      lastError = undefined;
    });
    this.opened.push(redis);
    return redis;
  }

  /** Closes our connections; no copy of them reconnects again. */
  stop(): void {
    this.stopped = true;
    for (const redis of this.opened) redis.disconnect();
  }
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
 * Subscribes once the connection is ready. ioredis sends SUBSCRIBE at once on a
 * connection that is connected but not yet ready (the command may run while
 * Redis loads); its ready check (INFO) then fails in subscriber mode, ioredis
 * reconnects, and, the connection never having been ready, does not subscribe
 * again: every message published later is lost. Under load the window is wide.
 */
export async function subscribeWhenReady(redis: Redis, channel: string, timeoutMs: number): Promise<void> {
  await whenReady(redis, timeoutMs);
  await redis.subscribe(channel);
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
