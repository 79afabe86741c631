import { errors } from '../http/errors.ts';
import type { ApiKey } from '../records/index.ts';
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from '../store/rate-limiter.ts';
import type { KeyCache } from './key-cache.ts';
import { hasTokenShape } from './token.ts';

/** The address's failed-authentication limit is reached: no store read was made for the token. */
export class AuthThrottled extends Error {
  readonly decision: RateLimitDecision;
  constructor(decision: RateLimitDecision) {
    super('failed-authentication limit reached');
    this.decision = decision;
  }
}

/** A key that exists, was not revoked and has not expired at `now`. */
export function usable(key: ApiKey | undefined, now: number): key is ApiKey {
  return key !== undefined && key.revoked_at === null && (key.expires_at === null || Date.parse(key.expires_at) > now);
}

/**
 * Finds the key for a presented token, counting failures per address. Throws `AuthThrottled`
 * when the address may not try again yet, and `invalid_api_key` for a token that names no usable
 * key; a store failure passes through uncounted.
 */
export type Authenticator = (token: string | null, failures: string, now: number) => Promise<ApiKey>;

/**
 * The cache-miss path of authentication. The request that reads the store for a token counts as
 * a failure until it proves otherwise, so concurrent guesses cannot all pass the throttle before
 * any is counted. Requests that wait on that same read are one guess: they count only if it
 * fails. The reservation runs inside the key cache's single read, so a burst with one token
 * reserves once, however slowly the limiter answers.
 */
export function createAuthenticator(keyCache: KeyCache, limiter: RateLimiter, policy: RateLimitPolicy): Authenticator {
  const count = async (failures: string) => {
    const decision = await limiter.consume(failures, policy, 1);
    if (!decision.allowed) throw new AuthThrottled(decision);
  };
  const uncount = (failures: string) => limiter.consume(failures, policy, -1);

  /** Resolves to the key and whether this request led the read (and so holds a reservation). */
  async function read(token: string, failures: string, now: number): Promise<[ApiKey | undefined, boolean]> {
    for (;;) {
      const leads = !keyCache.isLoading(token);
      let reserved = false;
      const reserve = async () => {
        await count(failures);
        reserved = true;
      };
      try {
        return [await keyCache.load(token, now, leads ? reserve : undefined), leads];
      } catch (error) {
        // A waiter whose leader was throttled (from another address) tries again on its own.
        if (!leads && error instanceof AuthThrottled) continue;
        // The store failed, not the client: its attempt must not count against its address. A
        // reservation the limiter itself failed to take counted nothing, so nothing goes back.
        if (reserved) await uncount(failures).catch(() => undefined);
        throw error;
      }
    }
  }

  return async (token, failures, now) => {
    if (token === null || !hasTokenShape(token)) {
      await count(failures);
      throw errors.invalidApiKey();
    }
    const [key, leads] = await read(token, failures, now);
    if (!usable(key, now)) {
      if (!leads) await count(failures);
      throw errors.invalidApiKey();
    }
    if (leads) await uncount(failures);
    return key;
  };
}
