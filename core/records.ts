/**
 * The records the API stores and returns. Field names are the wire names of contract §6 and §7,
 * so a record can be serialised as it is.
 */

export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

export type TargetType = 'domain' | 'ip';
export type Scheme = 'http' | 'https';

export const SERVICE_TYPES = [
  'web', 'ssh', 'smtp', 'smtps', 'submission', 'ftp', 'imap', 'imaps', 'pop3', 'pop3s', 'dns',
  'mysql', 'postgresql', 'rdp', 'tcp',
] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

/** A timestamp: ISO 8601 UTC with milliseconds, e.g. `2026-11-22T07:00:00.000Z`. */
export type Timestamp = string;

export interface Device {
  id: number;
  target_type: TargetType;
  target_value: string;
  service_type: ServiceType;
  scheme: Scheme | null;
  port: number;
  host_header: string | null;
  proxy_enabled: boolean;
  origin_host: string | null;
  origin_scheme: Scheme | null;
  origin_port: number | null;
  check_public_http: boolean;
  check_public_https: boolean;
  check_public_tls: boolean;
  check_origin_http: boolean;
  check_origin_tls: boolean;
  expect_status: number | null;
  location: string | null;
  is_enabled: boolean;
  created_at: Timestamp;
}

/** A device as validated from a create request, before the store gives it an id. */
export type NewDevice = Omit<Device, 'id'>;

export type BlacklistStatus = 'clean' | 'listed' | 'error';

export interface BlacklistMonitor {
  id: number;
  target_type: TargetType;
  target_value: string;
  is_enabled: boolean;
  last_status: BlacklistStatus | null;
  last_checked_at: Timestamp | null;
  /** The blacklist zones that listed the target at the last check; [] otherwise. */
  listed_on: string[];
  created_at: Timestamp;
}

export type NewBlacklistMonitor = Omit<BlacklistMonitor, 'id'>;

/** The outcome of a blacklist check, as a checker reports it to the store. */
export interface BlacklistCheckResult {
  last_status: BlacklistStatus;
  last_checked_at: Timestamp;
  listed_on: string[];
}

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
 * `GET /me`'s data: the calling key and its user (spec §4.2), plus the key's expiry. More fields
 * may follow in later releases.
 */
export interface Me {
  user_id: number;
  key_id: number;
  scopes: Scope[];
  expires_at: Timestamp | null;
}

/** A delete's data. */
export interface Deleted {
  id: number;
  deleted: true;
}
