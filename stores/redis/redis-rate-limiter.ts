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
  /**
   * How long a decision waits for Redis before it counts as unanswered (default 100 ms). The
   * first unanswered decision starts an outage: from then on decisions fail open or closed at
   * once, without asking Redis, until a background probe sees it answer again.
   */
  timeoutMs?: number;
  /** How often the background probe pings Redis during an outage (default 500 ms). */
  probeIntervalMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 100;
const DEFAULT_PROBE_INTERVAL_MS = 500;

/** What a fail-closed decision throws during an outage: the same error each time, so a log can count it. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

/** Rejects with `onTimeout()` when `promise` has not settled within `ms`; the late result is dropped. */
function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    // A decision abandoned here must not keep the process alive until Redis answers.
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** A `RateLimiter` shared by every instance pointed at the same Redis. */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #consume: ConsumeCommand;
  readonly #prefix: string;
  readonly #failOpen: boolean;
  readonly #warn: (message: string) => void;
  readonly #timeoutMs: number;
  readonly #probeIntervalMs: number;
  /** Set while Redis is taken as down: decisions do not wait on it. */
  #outage: RedisUnavailableError | undefined;
  #probe: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'monitoring-api';
    this.#failOpen = options.failOpen ?? true;
    this.#warn = options.warn ?? (() => {});
    this.#timeoutMs = positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.#probeIntervalMs = positive(options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS, 'probeIntervalMs');
    redis.defineCommand('monitoringApiConsume', { numberOfKeys: 1, lua: CONSUME });
    const command = (redis as unknown as Record<string, ConsumeCommand>).monitoringApiConsume!;
    this.#consume = command.bind(redis);
  }

  async consume(bucket: string, policy: RateLimitPolicy, cost = 1): Promise<RateLimitDecision> {
    // During an outage nothing is sent: a request must not wait on a Redis that did not answer.
    if (this.#outage !== undefined) return this.#unavailable(policy, this.#outage);
    let count: number;
    let ttlMs: number;
    try {
      [count, ttlMs] = await within(
        this.#consume(`${this.#prefix}:rl:${bucket}`, cost, policy.windowSeconds * 1000),
        this.#timeoutMs,
        () => new Error(`no answer within ${this.#timeoutMs} ms`),
      );
    } catch (error) {
      return this.#unavailable(policy, this.#startOutage(error));
    }
    return {
      allowed: cost > 0 ? count <= policy.limit : count < policy.limit,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - count),
      resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    };
  }

  #unavailable(policy: RateLimitPolicy, outage: RedisUnavailableError): RateLimitDecision {
    if (!this.#failOpen) throw outage;
    return { allowed: true, limit: policy.limit, remaining: policy.limit, resetSeconds: policy.windowSeconds };
  }

  /** Concurrent decisions may all fail at the start of an outage; the first one starts it. */
  #startOutage(error: unknown): RedisUnavailableError {
    if (this.#outage !== undefined) return this.#outage;
    const reason = error instanceof Error ? error.message : String(error);
    this.#outage = new RedisUnavailableError(`rate limiter: Redis unavailable (${reason})`);
    this.#warn(
      `rate limiter: Redis unreachable (${reason}); failing ${this.#failOpen ? 'open' : 'closed'} until it answers again`,
    );
    this.#scheduleProbe();
    return this.#outage;
  }

  /** One PING at a time, each bounded like a decision; the first answer ends the outage. */
  #scheduleProbe(): void {
    if (this.#closed) return;
    this.#probe = setTimeout(() => {
      within(this.#redis.ping(), Math.max(this.#timeoutMs, this.#probeIntervalMs), () => new Error('no answer')).then(
        () => {
          if (this.#closed) return;
          this.#outage = undefined;
          this.#warn('rate limiter: Redis reachable again');
        },
        () => this.#scheduleProbe(),
      );
    }, this.#probeIntervalMs);
    // The probe serves requests; on its own it must not keep a process alive.
    this.#probe.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#probe);
    // QUIT waits for Redis's answer: a Redis that does not answer would hold a shutdown forever.
    if (this.#outage !== undefined) {
      this.#redis.disconnect();
      return;
    }
    await within(this.#redis.quit(), this.#timeoutMs, () => new Error('no answer')).catch(() =>
      this.#redis.disconnect(),
    );
  }
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive number of milliseconds, not ${value}`);
  return value;
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
