import type { Redis } from 'ioredis';

/** Redis's own clock in ms: the one clock every node of a fleet agrees on (node clocks may differ by minutes). */
export async function redisTimeMs(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
