import type { Logger, RateLimiter } from '../../core/index.ts';
import { MemoryRateLimiter } from '../../core/index.ts';
import { UnreachableError } from '../unreachable-error.ts';
import { UsageError } from '../usage-error.ts';

/** Checks the form of a `--rate-limit-store` value without connecting anywhere. */
export function checkRateLimitStore(url: string, what = '--rate-limit-store'): string {
  if (url !== 'memory' && !/^rediss?:\/\/[^/?#]/.test(url)) {
    throw new UsageError(`${what} must be memory or redis://HOST:PORT[/DB], not "${url}"`);
  }
  // Checked here too, so a bad value is a usage error before anything is opened.
  const timeout = /[?&]timeout=([^&#]*)/.exec(url)?.[1];
  if (timeout !== undefined && !/^[1-9][0-9]{0,6}$/.test(timeout)) {
    throw new UsageError(`${what}: timeout must be milliseconds from 1 to 9999999, not "${timeout}"`);
  }
  return url;
}

/**
 * `memory` (one process) or `redis://HOST:PORT[/DB][?prefix=NAME&timeout=MS]` (shared by every instance).
 * The Redis module and its client are loaded only when asked for.
 */
export async function rateLimiterFromUrl(url: string, logger: Logger, failOpen: boolean): Promise<RateLimiter> {
  if (checkRateLimitStore(url) === 'memory') return new MemoryRateLimiter();
  let redis: typeof import('../../stores/redis/index.ts');
  try {
    redis = await import('../../stores/redis/index.ts');
  } catch (error) {
    // A build or install without the Redis store (or without ioredis) cannot honour the flag.
    throw new UnreachableError(`the Redis rate limiter cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    return await redis.createRedisRateLimiter(url, { failOpen, warn: (message) => logger.warn?.(message) });
  } catch (error) {
    throw new UnreachableError((error as Error).message);
  }
}
