import type { Config } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import type { Coordinator } from './coordinator.js';

/** The key prefix when coordination.redis.keyPrefix is not set. */
export const defaultKeyPrefix = 'spillway:';

/**
 * The coordinator the configuration asks for: Redis when coordination.redis is
 * set (start fails, naming the setting, when it cannot be reached), otherwise
 * none: one process coordinates itself as before (pid file sweep lock,
 * in-process spill numbers).
 */
export async function openCoordinator(config: Config, logger: Logger): Promise<Coordinator | undefined> {
  const redis = config.coordination.redis;
  if (redis === undefined) return undefined;
  // Loaded only for a fleet: ioredis stays off the start path of a single process.
  const { RedisCoordinator } = await import('./redis-coordinator.js');
  return await RedisCoordinator.connect({
    url: redis.url,
    keyPrefix: redis.keyPrefix ?? defaultKeyPrefix,
    logger: logger.child({ component: 'coordination' }),
  });
}
