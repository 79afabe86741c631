/** Who calls the API: users and their API keys (docs/contract.md §6.5). */
import type { Timestamp } from './common.ts';

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

export interface User {
  id: number;
  name: string | null;
  created_at: Timestamp;
}

/** A per-key override of the default rate limit: `limit` requests each `windowSeconds`. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

export interface ApiKey {
  id: number;
  user_id: number;
  name: string | null;
  scopes: Scope[];
  /** Addresses or CIDR blocks, v4 and v6; empty means any address. */
  allowed_ips: string[];
  rate_limit: RateLimitRule | null;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

/** A key as the host creates it; only the SHA-256 of its token is ever stored. */
export type NewApiKey = Omit<ApiKey, 'id' | 'revoked_at' | 'last_used_at'> & { token_hash: string };

/**
 * `GET /me`'s data: the calling key and its user (docs/contract.md §6.5), plus the key's expiry. More fields
 * may follow in later releases.
 */
export interface Me {
  user_id: number;
  key_id: number;
  scopes: Scope[];
  expires_at: Timestamp | null;
}
