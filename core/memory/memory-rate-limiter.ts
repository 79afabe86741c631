import type { Clock } from '../clock.ts';
import { systemClock } from '../clock.ts';
import type { RateLimitDecision, RateLimitPolicy, RateLimiter } from '../store/rate-limiter.ts';

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Fixed-window counters in this process. Each decision runs without an await between reading and
 * writing its counter, so concurrent requests cannot both take the last slot.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #clock: Clock;
  #nextSweep = 0;

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  async consume(bucket: string, policy: RateLimitPolicy, cost = 1): Promise<RateLimitDecision> {
    return this.consumeNow(bucket, policy, cost);
  }

  /** The synchronous decision behind `consume`, for callers that want to skip a microtask. */
  consumeNow(bucket: string, policy: RateLimitPolicy, cost = 1): RateLimitDecision {
    const now = this.#clock.now();
    this.#sweep(now);
    let window = this.#windows.get(bucket);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + policy.windowSeconds * 1000 };
      if (cost > 0) this.#windows.set(bucket, window);
    }
    window.count = Math.max(0, window.count + cost);
    const allowed = cost > 0 ? window.count <= policy.limit : window.count < policy.limit;
    return {
      allowed,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
    };
  }

  /** Drops expired windows now and then, so idle buckets do not accumulate. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 10_000;
    for (const [bucket, window] of this.#windows) {
      if (window.resetAt <= now) this.#windows.delete(bucket);
    }
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }
}
