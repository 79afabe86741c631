/** `limit` requests each window of `windowSeconds`. */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/**
 * Counts requests per bucket in fixed windows. Each call is one atomic decision: N concurrent
 * calls against a limit of L never allow more than L. `cost` 0 asks without counting; a negative
 * cost gives back what an earlier call took (a reservation that turned out not to count), never
 * below zero and never into a window that has ended.
 * Implementations: `MemoryRateLimiter` (one process) and `RedisRateLimiter` (shared).
 */
export interface RateLimiter {
  consume(bucket: string, policy: RateLimitPolicy, cost?: number): Promise<RateLimitDecision>;
  /**
   * The same decision made at once, offered by a limiter that needs no I/O to make it
   * (`MemoryRateLimiter`). The core uses it when present: every request asks twice (the address's
   * failures, then the key's quota), and a promise each was a measurable share of a request
   * (docs/performance.md, "Where the time goes").
   */
  consumeNow?(bucket: string, policy: RateLimitPolicy, cost?: number): RateLimitDecision;
  close?(): Promise<void>;
}
