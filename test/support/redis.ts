import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether the machine's Redis answers. Without it the Redis suites skip with this message on a
 * developer's machine; under CI=true the missing service is a failure, never a skip.
 */
export async function redisSkipReason(): Promise<string | undefined> {
  // A generous connect timeout: a Redis that is not running refuses at once, while a running one
  // on a busy machine can take seconds to answer, and on CI a late answer would fail the run.
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 10_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    const reason = `Redis not reachable at ${REDIS_URL}: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: Redis tests must run)`, { cause: error });
    return reason;
  } finally {
    redis.disconnect();
  }
}

/** A key prefix no other test run uses, so parallel runs never share counters. */
export function uniquePrefix(): string {
  return `monitoring-api-test-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}
