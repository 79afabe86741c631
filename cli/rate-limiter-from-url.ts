import type { Logger, RateLimiter } from '../core/index.ts';
import { MemoryRateLimiter } from '../core/index.ts';
import { UnreachableError, UsageError } from './usage-error.ts';

/**
 * `memory` (one process) or `redis://HOST:PORT[/DB][?prefix=NAME]` (shared by every instance).
 * The Redis client is loaded only when asked for.
 */
export async function rateLimiterFromUrl(url: string, logger: Logger, failOpen: boolean): Promise<RateLimiter> {
  if (url === 'memory') return new MemoryRateLimiter();
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--rate-limit-store must be memory or redis://HOST:PORT[/DB], not "${url}"`);
  const { createRedisRateLimiter } = await import('../stores/redis/index.ts');
  try {
    return await createRedisRateLimiter(url, { failOpen, warn: (message) => logger.warn?.(message) });
  } catch (error) {
    throw new UnreachableError((error as Error).message);
  }
}
