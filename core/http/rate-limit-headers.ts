import type { RateLimitDecision, RateLimitPolicy } from '../rate-limiter.ts';

/**
 * The rate-limit fields of docs/contract.md §8: draft-ietf-httpapi-ratelimit-headers-11
 * (`RateLimit-Policy`, `RateLimit`), the older `RateLimit-Limit/Remaining/Reset` that many
 * clients still read, and `Retry-After` (equal to `t`) when the request was refused.
 */
export function rateLimitHeaders(
  policyName: string, decision: RateLimitDecision, policy: RateLimitPolicy, legacy: boolean,
): Record<string, string> {
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
