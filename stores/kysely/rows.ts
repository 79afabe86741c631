import type { Insertable, Selectable } from 'kysely';
import {
  DEVICE_PROBES,
  DEVICE_STATUSES,
  SCOPES,
  type ApiKey,
  type BlacklistMonitor,
  type Device,
  type DeviceLastResults,
  type DeviceStatus,
  type DnsblListing,
  type NewApiKey,
  type NewBlacklistMonitor,
  type NewDevice,
  type RateLimitRule,
  type Scope,
  type Timestamp,
  type User,
} from '../../core/index.ts';
import type {
  ApiKeysTable,
  BlacklistMonitorsTable,
  DbFlag,
  DbInteger,
  DbTimestamp,
  DevicesTable,
  StoreDialect,
  UsersTable,
} from './schema.ts';
import { sqlOf } from './drivers/sql-of.ts';

// Conversions between database rows and core records. The drivers disagree on types (pg: int8
// as string, timestamptz as Date; SQLite: flags as 0/1, timestamps as text), and the records
// must come back the same whichever database holds them.

export function toId(value: DbInteger): number {
  const id = Number(value);
  if (!Number.isSafeInteger(id)) throw new Error(`an id beyond 2^53 came from the database: ${value}`);
  return id;
}

export function toFlag(value: DbFlag): boolean {
  return typeof value === 'boolean' ? value : value !== 0;
}

/** The API's form of a timestamp (`2026-11-26T21:28:02.123Z`), which both stores write as text. */
const API_STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A stored timestamp in the API's form. Text already in that form (SQLite's, and PostgreSQL's
 * through drivers/pg-timestamps.ts) is returned as it is; anything else goes through a Date.
 */
export function toStamp(value: DbTimestamp): Timestamp {
  if (typeof value === 'string') return API_STAMP.test(value) ? value : new Date(value).toISOString();
  return value.toISOString();
}

export function toNullableStamp(value: DbTimestamp | null): Timestamp | null {
  return value === null ? null : toStamp(value);
}

/**
 * The one text form timestamps are written in. On SQLite they are compared as text, which is
 * only time order when every value has the same shape.
 */
export function stampText(value: Timestamp): string {
  // A row's timestamps are mostly one and the same (a create's, a check's): the last is kept.
  if (value !== lastStampIn) {
    lastStampOut = new Date(value).toISOString();
    lastStampIn = value;
  }
  return lastStampOut;
}

let lastStampIn: string | undefined;
let lastStampOut = '';

export function nullableStampText(value: Timestamp | null): string | null {
  return value === null ? null : stampText(value);
}

export function flagFor(dialect: StoreDialect, value: boolean): DbFlag {
  return sqlOf(dialect).flag(value);
}

function parseStrings(text: string, column: string): string[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new Error(`column ${column} does not hold a JSON array of strings`);
  }
  return value;
}

/**
 * Reads a `channel_ids` column (migration 0014): a JSON array of ids, or null. A row read from a
 * schema before 0014 (a test's older database, the upgrade itself) has no such column: null.
 */
export function parseChannelIds(text: string | null | undefined, table: string): number[] | null {
  if (text === null || text === undefined) return null;
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((id) => Number.isSafeInteger(id))) {
    throw new Error(`column ${table}.channel_ids does not hold a JSON array of ids`);
  }
  return value as number[];
}

/**
 * The `name` and `channel_ids` columns of a new device or monitor (migration 0014), each only when
 * it is not null: the columns default to null, and a row that names neither has the columns of the
 * rows before them, so the same statement inserts it (records/insert-if-absent.ts).
 */
function notifyColumns(record: { name?: string | null; channel_ids?: number[] | null }) {
  return {
    ...(record.name == null ? {} : { name: record.name }),
    ...(record.channel_ids == null ? {} : { channel_ids: JSON.stringify(record.channel_ids) }),
  };
}

function isDeviceStatus(value: string): value is DeviceStatus {
  return (DEVICE_STATUSES as readonly string[]).includes(value);
}

function parseStatus(value: string): DeviceStatus {
  if (!isDeviceStatus(value)) throw new Error(`column devices.status holds an unknown status: ${value}`);
  return value;
}

/**
 * Reads `devices.last_results`: an object keyed by probe name. Each value is a result the store
 * wrote itself, so only the keys are checked, not every field of every result.
 */
function parseLastResults(text: string): DeviceLastResults {
  // A device not yet checked, every create among them, has none.
  if (text === '{}') return {};
  const value: unknown = JSON.parse(text);
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.keys(value).every((key) => (DEVICE_PROBES as readonly string[]).includes(key))
  ) {
    throw new Error('column devices.last_results does not hold an object keyed by probe name');
  }
  return value as DeviceLastResults;
}

function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

function parseScopes(text: string): Scope[] {
  const scopes = parseStrings(text, 'api_keys.scopes');
  if (!scopes.every(isScope)) throw new Error('column api_keys.scopes holds an unknown scope');
  return scopes;
}

function parseRateLimit(text: string | null): RateLimitRule | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  if (typeof value === 'object' && value !== null && 'limit' in value && 'windowSeconds' in value) {
    const { limit, windowSeconds } = value;
    if (typeof limit === 'number' && typeof windowSeconds === 'number') return { limit, windowSeconds };
  }
  throw new Error('column api_keys.rate_limit does not hold {limit, windowSeconds}');
}

export function userFromRow(row: Selectable<UsersTable>): User {
  return { id: toId(row.id), name: row.name, created_at: toStamp(row.created_at) };
}

export function userToRow(user: Omit<User, 'id'>): Insertable<UsersTable> {
  return { name: user.name, created_at: stampText(user.created_at) };
}

/** The key without its token hash, which never leaves the store. */
export function apiKeyFromRow(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: toId(row.id),
    user_id: toId(row.user_id),
    name: row.name,
    scopes: parseScopes(row.scopes),
    allowed_ips: parseStrings(row.allowed_ips, 'api_keys.allowed_ips'),
    rate_limit: parseRateLimit(row.rate_limit),
    created_at: toStamp(row.created_at),
    expires_at: toNullableStamp(row.expires_at),
    revoked_at: toNullableStamp(row.revoked_at),
    last_used_at: toNullableStamp(row.last_used_at),
  };
}

export function apiKeyToRow(key: NewApiKey): Insertable<ApiKeysTable> {
  return {
    user_id: key.user_id,
    name: key.name,
    token_hash: key.token_hash,
    scopes: JSON.stringify(key.scopes),
    allowed_ips: JSON.stringify(key.allowed_ips),
    rate_limit:
      key.rate_limit === null
        ? null
        : JSON.stringify({ limit: key.rate_limit.limit, windowSeconds: key.rate_limit.windowSeconds }),
    created_at: stampText(key.created_at),
    expires_at: nullableStampText(key.expires_at),
  };
}

/**
 * A new record's schedule: due at once when enabled (docs/engine.md, "Scheduling"), never while
 * disabled; not leased.
 */
function newSchedule(enabled: boolean, createdAt: Timestamp) {
  return {
    next_check_at: enabled ? stampText(createdAt) : null,
    lease_owner: null,
    lease_token: null,
    lease_expires_at: null,
  };
}

export function deviceFromRow(row: Selectable<DevicesTable>): Device {
  return {
    id: toId(row.id),
    target_type: row.target_type,
    target_value: row.target_value,
    service_type: row.service_type,
    scheme: row.scheme,
    port: row.port,
    host_header: row.host_header,
    proxy_enabled: toFlag(row.proxy_enabled),
    origin_host: row.origin_host,
    origin_scheme: row.origin_scheme,
    origin_port: row.origin_port,
    check_public_http: toFlag(row.check_public_http),
    check_public_https: toFlag(row.check_public_https),
    check_public_tls: toFlag(row.check_public_tls),
    check_origin_http: toFlag(row.check_origin_http),
    check_origin_tls: toFlag(row.check_origin_tls),
    expect_status: row.expect_status,
    location: row.location,
    is_enabled: toFlag(row.is_enabled),
    created_at: toStamp(row.created_at),
    check_interval_s: row.check_interval_s,
    check_locations: row.check_locations === null ? null : parseStrings(row.check_locations, 'devices.check_locations'),
    quorum: row.quorum,
    quorum_state: row.quorum_state,
    locations: row.location_states === null ? null : (JSON.parse(row.location_states) as Device['locations']),
    status: parseStatus(row.status),
    status_since: toNullableStamp(row.status_since),
    last_checked_at: toNullableStamp(row.last_checked_at),
    last_results: parseLastResults(row.last_results),
    name: row.name ?? null,
    channel_ids: parseChannelIds(row.channel_ids, 'devices'),
  };
}

export function deviceToRow(dialect: StoreDialect, userId: number, d: NewDevice): Insertable<DevicesTable> {
  const flag = (value: boolean): DbFlag => flagFor(dialect, value);
  return {
    user_id: userId,
    target_type: d.target_type,
    target_value: d.target_value,
    service_type: d.service_type,
    scheme: d.scheme,
    port: d.port,
    host_header: d.host_header,
    proxy_enabled: flag(d.proxy_enabled),
    origin_host: d.origin_host,
    origin_scheme: d.origin_scheme,
    origin_port: d.origin_port,
    check_public_http: flag(d.check_public_http),
    check_public_https: flag(d.check_public_https),
    check_public_tls: flag(d.check_public_tls),
    check_origin_http: flag(d.check_origin_http),
    check_origin_tls: flag(d.check_origin_tls),
    expect_status: d.expect_status,
    location: d.location,
    is_enabled: flag(d.is_enabled),
    created_at: stampText(d.created_at),
    check_interval_s: d.check_interval_s,
    check_locations: d.check_locations === null ? null : JSON.stringify(d.check_locations),
    quorum: d.quorum,
    quorum_state: d.quorum_state,
    location_states: d.locations === null ? null : JSON.stringify(d.locations),
    status: d.status,
    status_since: nullableStampText(d.status_since),
    last_checked_at: nullableStampText(d.last_checked_at),
    last_results: JSON.stringify(d.last_results),
    consecutive_failures: 0,
    // A device checked from several locations is scheduled per location (checks/location-checks.ts).
    ...newSchedule(d.is_enabled && d.check_locations === null, d.created_at),
    ...notifyColumns(d),
  };
}

export function monitorFromRow(row: Selectable<BlacklistMonitorsTable>): BlacklistMonitor {
  return {
    id: toId(row.id),
    target_type: row.target_type,
    target_value: row.target_value,
    is_enabled: toFlag(row.is_enabled),
    last_status: row.last_status,
    last_checked_at: toNullableStamp(row.last_checked_at),
    listed_on: parseStrings(row.listed_on, 'blacklist_monitors.listed_on'),
    created_at: toStamp(row.created_at),
    check_interval_s: row.check_interval_s,
    failed_zones: parseStrings(row.failed_zones, 'blacklist_monitors.failed_zones'),
    zones: row.zones === null ? null : parseStrings(row.zones, 'blacklist_monitors.zones'),
    count_policy_listings: toFlag(row.count_policy_listings),
    listings: parseListings(row.listings),
    rdns: row.rdns,
    name: row.name ?? null,
    channel_ids: parseChannelIds(row.channel_ids, 'blacklist_monitors'),
  };
}

/**
 * Reads `blacklist_monitors.listings`: an array the engine's checks wrote through this store, so
 * only its shape is checked, not every field of every listing.
 */
function parseListings(text: string): DnsblListing[] {
  // Nearly every monitor is listed nowhere.
  if (text === '[]') return [];
  const value: unknown = JSON.parse(text);
  const isListing = (item: unknown) =>
    typeof item === 'object' && item !== null && typeof (item as { zone?: unknown }).zone === 'string';
  if (!Array.isArray(value) || !value.every(isListing)) {
    throw new Error('column blacklist_monitors.listings does not hold an array of listings');
  }
  return value as DnsblListing[];
}

export function monitorToRow(
  dialect: StoreDialect,
  userId: number,
  m: NewBlacklistMonitor,
): Insertable<BlacklistMonitorsTable> {
  return {
    user_id: userId,
    target_type: m.target_type,
    target_value: m.target_value,
    is_enabled: flagFor(dialect, m.is_enabled),
    last_status: m.last_status,
    last_checked_at: nullableStampText(m.last_checked_at),
    listed_on: JSON.stringify(m.listed_on),
    created_at: stampText(m.created_at),
    check_interval_s: m.check_interval_s,
    failed_zones: JSON.stringify(m.failed_zones),
    zones: m.zones === null ? null : JSON.stringify(m.zones),
    count_policy_listings: flagFor(dialect, m.count_policy_listings),
    listings: JSON.stringify(m.listings),
    rdns: m.rdns,
    ...newSchedule(m.is_enabled, m.created_at),
    ...notifyColumns(m),
  };
}
