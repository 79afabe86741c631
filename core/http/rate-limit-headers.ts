import type { RateLimitDecision, RateLimitPolicy } from '../store/rate-limiter.ts';
import type { HeaderFields } from './api-error.ts';

/**
 * The rate-limit fields of docs/contract.md §8: draft-ietf-httpapi-ratelimit-headers-11
 * (`RateLimit-Policy`, `RateLimit`), the older `RateLimit-Limit/Remaining/Reset` that many
 * clients still read, and `Retry-After` (equal to `t`) when the request was refused.
 */
function rateLimitHeaders(
  policyName: string,
  decision: RateLimitDecision,
  policy: RateLimitPolicy,
  legacy: boolean,
): HeaderFields {
  const reset = String(decision.resetSeconds);
  const headers: Record<string, string> = {
    'ratelimit-policy': `"${policyName}";q=${policy.limit};w=${policy.windowSeconds}`,
    ratelimit: `"${policyName}";r=${decision.remaining};t=${reset}`,
  };
  if (legacy) {
    headers['ratelimit-limit'] = String(policy.limit);
    headers['ratelimit-remaining'] = String(decision.remaining);
    headers['ratelimit-reset'] = reset;
  }
  if (!decision.allowed) headers['retry-after'] = reset;
  return headers;
}

/** Where a key's quota stands (docs/contract.md §8): every answer to a known key carries these. */
export function keyQuotaHeaders(decision: RateLimitDecision, policy: RateLimitPolicy): HeaderFields {
  return rateLimitHeaders('key', decision, policy, true);
}

/**
 * The failed-authentication throttle of an address (docs/decisions.md §2): the draft's fields only,
 * named `failed-auth` so that a client cannot take it for its key's quota.
 */
export function authThrottleHeaders(decision: RateLimitDecision, policy: RateLimitPolicy): HeaderFields {
  return rateLimitHeaders('failed-auth', decision, policy, false);
}
