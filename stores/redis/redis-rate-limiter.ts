import { Redis, type RedisOptions } from 'ioredis';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from '../../core/index.ts';

/**
 * One decision, atomically inside Redis: count (unless `cost` is 0; a negative cost gives back,
 * and only into a window that still exists), start the window on the first hit, and report the
 * count and the time left. No read-then-write from the client, so
 * every instance sharing this Redis shares one exact limit.
 */
const CONSUME = `
local cost = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local count
if cost > 0 or (cost < 0 and redis.call('EXISTS', KEYS[1]) == 1) then
  count = redis.call('INCRBY', KEYS[1], cost)
  if count < 0 then
    redis.call('SET', KEYS[1], 0, 'KEEPTTL')
    count = 0
  end
else
  count = tonumber(redis.call('GET', KEYS[1]) or '0')
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], window)
  ttl = window
elseif ttl < 0 then
  ttl = window
end
return {count, ttl}
`;

type ConsumeCommand = (key: string, cost: number, windowMs: number) => Promise<[number, number]>;

export interface RedisRateLimiterOptions {
  /** Prefix of every key, so several deployments can share one Redis. Default `monitoring-api`. */
  prefix?: string;
  /**
   * When Redis cannot be reached: true lets requests through (a warning is logged once per outage),
   * false answers them 500 `server_error`. Default true: docs/cli.md (serve, `--rate-limit-fail`) says why.
   */
  failOpen?: boolean;
  /** Told once when an outage starts and once when it ends. */
  warn?: (message: string) => void;
}

/** A `RateLimiter` shared by every instance pointed at the same Redis. */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #consume: ConsumeCommand;
  readonly #prefix: string;
  readonly #failOpen: boolean;
  readonly #warn: (message: string) => void;
  #outage = false;

  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'monitoring-api';
    this.#failOpen = options.failOpen ?? true;
    this.#warn = options.warn ?? (() => {});
    redis.defineCommand('monitoringApiConsume', { numberOfKeys: 1, lua: CONSUME });
    const command = (redis as unknown as Record<string, ConsumeCommand>).monitoringApiConsume!;
    this.#consume = command.bind(redis);
  }

  async consume(bucket: string, policy: RateLimitPolicy, cost = 1): Promise<RateLimitDecision> {
    let count: number;
    let ttlMs: number;
    try {
      [count, ttlMs] = await this.#consume(`${this.#prefix}:rl:${bucket}`, cost, policy.windowSeconds * 1000);
    } catch (error) {
      if (!this.#outage) {
        this.#outage = true;
        this.#warn(`rate limiter: Redis unreachable (${(error as Error).message}); failing ${this.#failOpen ? 'open' : 'closed'}`);
      }
      if (!this.#failOpen) throw error;
      return { allowed: true, limit: policy.limit, remaining: policy.limit, resetSeconds: policy.windowSeconds };
    }
    if (this.#outage) {
      this.#outage = false;
      this.#warn('rate limiter: Redis reachable again');
    }
    return {
      allowed: cost > 0 ? count <= policy.limit : count < policy.limit,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - count),
      resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    };
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/** Connection settings that make an outage fail fast instead of queueing requests behind it. */
export const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2_000,
  commandTimeout: 1_000,
  // ioredis arms this timer on disconnect() even when the socket is already closed, and nothing
  // clears it then: after a refused first connection it held the process open for 2 s.
  disconnectTimeout: 100,
  // Keep reconnecting in the background, so recovery needs no restart.
  retryStrategy: (times) => Math.min(times * 100, 2_000),
};
