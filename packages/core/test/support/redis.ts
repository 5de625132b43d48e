import { Redis } from 'ioredis';

/** The real Redis the integration tests use. */
export const redisAddress = '127.0.0.1:6379';

/** Removes every key a test run wrote under its prefix. */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(redisAddress);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
}
