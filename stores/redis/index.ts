import { Redis } from 'ioredis';
import { FAIL_FAST, RedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter.ts';

export { RedisRateLimiter, RedisUnavailableError, type RedisRateLimiterOptions } from './redis-rate-limiter.ts';

/**
 * Connects to `redis://HOST:PORT[/DB][?prefix=NAME&timeout=MS]` and returns a shared limiter once
 * Redis answers; an unreachable Redis at start is an error (the operator asked for it explicitly).
 * `timeout` is how long a decision waits for Redis before the limiter fails open or closed.
 */
export async function createRedisRateLimiter(
  url: string,
  options: RedisRateLimiterOptions = {},
): Promise<RedisRateLimiter> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`not a Redis URL: ${url} (expected redis://HOST:PORT[/DB])`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`not a Redis URL: ${url} (expected redis://HOST:PORT[/DB])`);
  }
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`invalid Redis database number in ${url}`);
  const prefix = parsed.searchParams.get('prefix') ?? options.prefix;
  const timeout = parsed.searchParams.get('timeout');
  if (timeout !== null && !/^[1-9][0-9]{0,6}$/.test(timeout)) {
    throw new Error(`invalid timeout in ${url} (milliseconds, 1 to 9999999)`);
  }
  const redis = new Redis(url.split('?')[0]!, { ...FAIL_FAST, db, lazyConnect: true });
  // Errors surface through the commands that fail; without a listener ioredis would print them.
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${parsed.host}: ${(error as Error).message}`, { cause: error });
  }
  return new RedisRateLimiter(redis, {
    ...options,
    ...(prefix ? { prefix } : {}),
    ...(timeout !== null ? { timeoutMs: Number(timeout) } : {}),
  });
}
