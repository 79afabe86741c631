import type { Clock } from '../clock.ts';
import { systemClock, toTimestamp } from '../clock.ts';
import { normalizeCidr } from '../net/ip-matcher.ts';
import { SCOPES, type ApiKey, type RateLimitRule, type Scope, type User } from '../records/index.ts';
import type { Store } from '../store/store.ts';
import { generateToken, hashToken } from '../auth/token.ts';

export interface CreateApiKeyInput {
  userId: number;
  /** A non-empty subset of read and write; both when left out. */
  scopes?: readonly Scope[];
  /** Addresses or CIDR blocks, v4 or v6; none means any address. */
  allowedIps?: readonly string[];
  name?: string | null;
  rateLimit?: RateLimitRule | null;
  expiresAt?: Date | string | null;
}

export interface CreatedApiKey {
  key: ApiKey;
  /** The secret itself: shown this once, never stored. */
  token: string;
}

/** Thrown for a bad argument to the key functions; the CLI prints its message. */
export class KeyAdminError extends Error {
  override readonly name = 'KeyAdminError';
}

/**
 * Issuing and revoking keys: the host's side of docs/contract.md §7, never reachable through the v1
 * HTTP API. The CLI and embedding hosts both use these.
 */
export class KeyAdmin {
  private readonly store: Store;
  private readonly clock: Clock;
  /** Called after a revocation, so a key cache can forget the key at once. */
  private readonly onRevoke: (keyId: number) => void;

  constructor(store: Store, clock: Clock = systemClock, onRevoke: (keyId: number) => void = () => {}) {
    this.store = store;
    this.clock = clock;
    this.onRevoke = onRevoke;
  }

  async createUser(input: { name?: string | null } = {}): Promise<User> {
    return this.store.createUser({ name: input.name ?? null, created_at: toTimestamp(this.clock.now()) });
  }

  async createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    if (!Number.isSafeInteger(input.userId) || input.userId < 1)
      throw new KeyAdminError(`invalid user id: ${input.userId}`);
    if ((await this.store.getUser(input.userId)) === undefined)
      throw new KeyAdminError(`no user with id ${input.userId}`);
    const scopes = [...new Set(input.scopes ?? SCOPES)];
    if (scopes.length === 0 || scopes.some((s) => !SCOPES.includes(s))) {
      throw new KeyAdminError(`scopes must be a non-empty subset of ${SCOPES.join(', ')}`);
    }
    const allowedIps = (input.allowedIps ?? []).map((entry) => {
      const normalized = normalizeCidr(entry);
      if (normalized === null) throw new KeyAdminError(`not an IP address or CIDR block: ${entry}`);
      return normalized;
    });
    const rateLimit = input.rateLimit ?? null;
    if (rateLimit !== null && !(isPositiveInt(rateLimit.limit) && isPositiveInt(rateLimit.windowSeconds))) {
      throw new KeyAdminError('a rate limit is a positive number of requests per a positive number of seconds');
    }
    let expiresAt: string | null = null;
    if (input.expiresAt != null) {
      const ms = new Date(input.expiresAt).getTime();
      if (Number.isNaN(ms)) throw new KeyAdminError(`not a date: ${String(input.expiresAt)}`);
      expiresAt = toTimestamp(ms);
    }
    const token = generateToken();
    const key = await this.store.createApiKey({
      user_id: input.userId,
      name: input.name ?? null,
      scopes: SCOPES.filter((s) => scopes.includes(s)),
      allowed_ips: allowedIps,
      rate_limit: rateLimit,
      created_at: toTimestamp(this.clock.now()),
      expires_at: expiresAt,
      token_hash: await hashToken(token),
    });
    return { key, token };
  }

  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.store.listApiKeys(userId);
  }

  /** False when there is no such key or it was revoked already. */
  async revokeApiKey(keyId: number): Promise<boolean> {
    const revoked = await this.store.revokeApiKey(keyId, toTimestamp(this.clock.now()));
    this.onRevoke(keyId);
    return revoked;
  }
}

function isPositiveInt(n: number): boolean {
  return Number.isSafeInteger(n) && n > 0;
}
