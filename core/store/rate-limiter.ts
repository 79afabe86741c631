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
   * (`MemoryRateLimiter`). The core calls it instead of `consume` on every request's two checks
   * (the address's failures, then the key's quota), where a promise each was a measurable share of
   * a request (docs/performance.md, "What stands between these figures and the targets"), but
   * only when the same class or object defines both methods: a subclass that overrides `consume`
   * alone keeps every decision.
   */
  consumeNow?(bucket: string, policy: RateLimitPolicy, cost?: number): RateLimitDecision;
  close?(): Promise<void>;
}

/** `RateLimiter.consumeNow`, bound to its limiter. */
export type ConsumeNow = (bucket: string, policy: RateLimitPolicy, cost?: number) => RateLimitDecision;

/**
 * A limiter's `consumeNow`, when it can stand in for `consume`: the same class or object defines
 * both. A subclass of MemoryRateLimiter that overrides `consume` alone (written before `consumeNow`
 * meant anything to the core) inherits a `consumeNow` that knows nothing of its policy, so it gets
 * undefined here and keeps every decision going through its `consume`.
 */
export function consumeNowOf(limiter: RateLimiter): ConsumeNow | undefined {
  const { consumeNow } = limiter;
  if (consumeNow === undefined || definerOf(limiter, 'consumeNow') !== definerOf(limiter, 'consume')) return undefined;
  return consumeNow.bind(limiter);
}

/** The object in `value`'s prototype chain that holds `name` itself. */
function definerOf(value: object, name: string): object | undefined {
  for (let at: object | null = value; at !== null; at = Object.getPrototypeOf(at) as object | null) {
    if (Object.hasOwn(at, name)) return at;
  }
  return undefined;
}
