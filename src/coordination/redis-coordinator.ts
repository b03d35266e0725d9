import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { SpillwayError } from '../errors.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { Coordinator, Lease } from './coordinator.js';
import { redisTimeMs } from './redis-time.js';
import { redactUrl } from '../util/redact-url.js';

export interface RedisCoordinatorOptions {
  /** redis:// or rediss:// URL (coordination.redis.url). */
  url: string;
  /** Put in front of every key (coordination.redis.keyPrefix), so several fleets can share one Redis. */
  keyPrefix: string;
  /** How long the first connection may take before start fails. Default 5 s. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

// Each script is one atomic step on the server: a lock is released or renewed only by its own token.
const releaseScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const renewScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
// INCR, continuing from a floor when the counter is missing or behind (the files show higher numbers).
const incrementScript =
  "local current = tonumber(redis.call('GET', KEYS[1]) or '0') if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end return redis.call('INCR', KEYS[1])";
// HINCRBY of every field in every hash (KEYS), returning the first hash's new values: one atomic step.
const addCountsScript = `local result = {}
for k = 1, #KEYS do
  for i = 1, #ARGV, 2 do
    local value = redis.call('HINCRBY', KEYS[k], ARGV[i], ARGV[i + 1])
    if k == 1 then result[#result + 1] = value end
  end
end
return result`;
// Adds ARGV[3..]'s field/amount pairs to the hash KEYS[1] only while its field ARGV[1] holds ARGV[2]; 1 when added.
const addCountsIfScript = `local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if current ~= tonumber(ARGV[2]) then return 0 end
for i = 3, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1`;
// The hash KEYS[1] becomes ARGV's field/value pairs, plus (when given) every counter of the hash KEYS[2].
const replaceCountsScript = `redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if #KEYS > 1 then
  local plus = redis.call('HGETALL', KEYS[2])
  for i = 1, #plus, 2 do redis.call('HINCRBY', KEYS[1], plus[i], plus[i + 1]) end
end
return 1`;
// ZADD the score/member pairs after ARGV[1] (drop below) and ARGV[2] (time to live), trim, expire.
const addScoresScript = `for i = 3, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * The coordinator for a fleet: replicas sharing one Redis. Commands are not
 * queued while Redis is away (enableOfflineQueue: false): they fail at once
 * with COORDINATION_UNAVAILABLE, and ioredis reconnects in the background.
 */
export class RedisCoordinator implements Coordinator {
  readonly store = 'redis';

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly where: string,
  ) {}

  /** Connects, or fails with COORDINATION_UNAVAILABLE naming the setting when Redis cannot be reached. */
  static async connect(options: RedisCoordinatorOptions): Promise<RedisCoordinator> {
    const logger = options.logger ?? silentLogger();
    const where = redactUrl(options.url);
    const redis = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    let lastError: string | undefined;
    redis.on('error', (error: Error) => {
      // ioredis repeats the error on every reconnect attempt; log only when it changes.
      if (error.message === lastError) return;
      lastError = error.message;
      logger.warn({ err: error, redis: where }, 'coordination store (Redis) error');
    });
    redis.on('ready', () => {
      if (lastError !== undefined) logger.info({ redis: where }, 'coordination store (Redis) connected again');
      lastError = undefined;
    });
    try {
      await redis.connect();
      await redis.ping();
    } catch (error) {
      redis.disconnect();
      throw new SpillwayError(
        'COORDINATION_UNAVAILABLE',
        `coordination.redis.url: cannot reach Redis at ${where} (${(error as Error).message}). Start Redis or correct the URL; remove coordination.redis to run a single process without it.`,
        { setting: 'coordination.redis.url', url: where, retryable: true },
      );
    }
    return new RedisCoordinator(redis, options.keyPrefix, where);
  }

  async tryLock(key: string, leaseMs: number): Promise<Lease | undefined> {
    const token = randomUUID();
    const name = this.prefix + key;
    const taken = await this.run(() => this.redis.set(name, token, 'PX', leaseMs, 'NX'));
    if (taken !== 'OK') return undefined;
    let released = false;
    return {
      key,
      token,
      renew: async (ms) => (await this.run(() => this.redis.eval(renewScript, 1, name, token, String(ms)))) === 1,
      release: async () => {
        if (released) return;
        released = true;
        await this.run(() => this.redis.eval(releaseScript, 1, name, token));
      },
    };
  }

  async increment(key: string, atLeast = 0): Promise<number> {
    return Number(await this.run(() => this.redis.eval(incrementScript, 1, this.prefix + key, String(atLeast))));
  }

  async append(key: string, entry: string): Promise<void> {
    await this.run(() => this.redis.rpush(this.prefix + key, entry));
  }

  readLog(key: string): Promise<string[]> {
    return this.run(() => this.redis.lrange(this.prefix + key, 0, -1));
  }

  async addCounts(keys: readonly string[], by: Readonly<Record<string, number>>): Promise<Record<string, number>> {
    const fields = Object.entries(by);
    if (keys.length === 0 || fields.length === 0) return {};
    const args = fields.flatMap(([field, amount]) => [field, String(Math.round(amount))]);
    const values = (await this.run(() => this.redis.eval(addCountsScript, keys.length, ...keys.map((key) => this.prefix + key), ...args))) as number[];
    return Object.fromEntries(fields.map(([field], index) => [field, Number(values[index])]));
  }

  async addCountsIf(key: string, by: Readonly<Record<string, number>>, when: { field: string; equals: number }): Promise<boolean> {
    const args = Object.entries(by).flatMap(([field, amount]) => [field, String(Math.round(amount))]);
    const added = await this.run(() => this.redis.eval(addCountsIfScript, 1, this.prefix + key, when.field, String(Math.round(when.equals)), ...args));
    return Number(added) === 1;
  }

  async readCounts(key: string): Promise<Record<string, number>> {
    const hash = await this.run(() => this.redis.hgetall(this.prefix + key));
    return Object.fromEntries(Object.entries(hash).map(([field, value]) => [field, Number(value)]));
  }

  async replaceCounts(key: string, values: Readonly<Record<string, number>>, options: { plusFrom?: string } = {}): Promise<void> {
    const keys = [key, ...(options.plusFrom === undefined ? [] : [options.plusFrom])].map((name) => this.prefix + name);
    const args = Object.entries(values).flatMap(([field, amount]) => [field, String(Math.round(amount))]);
    await this.run(() => this.redis.eval(replaceCountsScript, keys.length, ...keys, ...args));
  }

  async addScores(key: string, scores: Readonly<Record<string, number>>, options: { dropBelow: number; ttlMs: number }): Promise<void> {
    const args = Object.entries(scores).flatMap(([member, score]) => [String(score), member]);
    const ttl = String(Math.max(1, Math.round(options.ttlMs)));
    await this.run(() => this.redis.eval(addScoresScript, 1, this.prefix + key, String(options.dropBelow), ttl, ...args));
  }

  async readScore(key: string, member: string): Promise<number | undefined> {
    const score = await this.run(() => this.redis.zscore(this.prefix + key, member));
    return score === null ? undefined : Number(score);
  }

  timeMs(): Promise<number> {
    return this.run(() => redisTimeMs(this.redis));
  }

  async ping(): Promise<void> {
    await this.run(() => this.redis.ping());
  }

  connected(): boolean {
    return this.redis.status === 'ready';
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Runs one command; a failure to reach Redis becomes COORDINATION_UNAVAILABLE (retryable). */
  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new SpillwayError(
        'COORDINATION_UNAVAILABLE',
        `The coordination store (Redis at ${this.where}) cannot be reached (${(error as Error).message}); nothing was changed. Try the call again in a moment.`,
        { url: this.where, retryable: true },
      );
    }
  }
}
