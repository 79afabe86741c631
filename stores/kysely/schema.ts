import { PostgresAdapter, SqliteAdapter } from 'kysely';
import type { ColumnType, Kysely } from 'kysely';
import type {
  BlacklistStatus, DeviceStatus, EventType, MonitoredKind, ProbeName, Scheme, ServiceType,
  TargetType,
} from '../../core/index.ts';
import type { WebhookTables } from './webhook-schema.ts';

/** The SQL databases a `KyselyStore` runs on. */
export type StoreDialect = 'postgres' | 'sqlite';

/**
 * An integer as the drivers hand it back: pg returns int8 as a string (it may exceed 2^53),
 * better-sqlite3 a number, or a bigint in safe-integers mode. The store turns each into a number.
 */
export type DbInteger = number | string | bigint;

/** A flag: boolean on PostgreSQL, 0/1 on SQLite, which has no boolean type. */
export type DbFlag = boolean | number;

/**
 * A timestamp: ISO 8601 text on SQLite, and from pg the same text through openKyselyStore's pool
 * (pg-timestamps.ts), or a Date from a pool of the host's own or a session outside UTC.
 */
export type DbTimestamp = Date | string;

type Id = ColumnType<DbInteger, never, never>;
type Ref = ColumnType<DbInteger, number, number>;
type Flag = ColumnType<DbFlag, DbFlag, DbFlag>;
type Stamp = ColumnType<DbTimestamp, string, string>;
type NullableStamp = ColumnType<DbTimestamp | null, string | null, string | null>;

export interface UsersTable {
  id: Id;
  name: string | null;
  created_at: Stamp;
}

export interface ApiKeysTable {
  id: Id;
  user_id: Ref;
  name: string | null;
  token_hash: string;
  /** JSON array of scopes. */
  scopes: string;
  /** JSON array of addresses and CIDR blocks. */
  allowed_ips: string;
  /** JSON object `{limit, windowSeconds}`, or null for the default limit. */
  rate_limit: string | null;
  created_at: Stamp;
  expires_at: NullableStamp;
  revoked_at: NullableStamp;
  last_used_at: NullableStamp;
}

export interface DevicesTable {
  id: Id;
  user_id: Ref;
  target_type: TargetType;
  target_value: string;
  service_type: ServiceType;
  scheme: Scheme | null;
  port: number;
  host_header: string | null;
  proxy_enabled: Flag;
  origin_host: string | null;
  origin_scheme: Scheme | null;
  origin_port: number | null;
  check_public_http: Flag;
  check_public_https: Flag;
  check_public_tls: Flag;
  check_origin_http: Flag;
  check_origin_tls: Flag;
  expect_status: number | null;
  location: string | null;
  is_enabled: Flag;
  created_at: Stamp;
  check_interval_s: number;
  status: DeviceStatus;
  status_since: NullableStamp;
  last_checked_at: NullableStamp;
  /** JSON object: the last result of each probe, keyed by probe name. */
  last_results: string;
  consecutive_failures: number;
  /** Null while disabled: only records with a next check can be claimed. */
  next_check_at: NullableStamp;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: NullableStamp;
}

export interface BlacklistMonitorsTable {
  id: Id;
  user_id: Ref;
  target_type: TargetType;
  target_value: string;
  is_enabled: Flag;
  last_status: BlacklistStatus | null;
  last_checked_at: NullableStamp;
  /** JSON array of blacklist zones. */
  listed_on: string;
  created_at: Stamp;
  check_interval_s: number;
  /** JSON array of the zones whose lookup failed at the last check. */
  failed_zones: string;
  next_check_at: NullableStamp;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: NullableStamp;
}

/** One probe's result (one DNSBL zone's, for a monitor). Rows go with their record. */
export interface CheckResultsTable {
  id: Id;
  resource_kind: MonitoredKind;
  /** A device's or a monitor's id, by `resource_kind`: no foreign key can name both tables. */
  resource_id: Ref;
  checked_at: Stamp;
  probe: ProbeName;
  ok: Flag;
  response_ms: number | null;
  error: string | null;
  /** JSON object of the probe's own fields (`zone`, `http_status`, `tls_valid_to`, `banner`, ...). */
  fields: string;
}

/** The outbox: status changes to announce, written with the check that caused them. */
export interface EventsTable {
  id: Id;
  user_id: Ref;
  type: EventType;
  resource_kind: MonitoredKind;
  resource_id: Ref;
  created_at: Stamp;
  /** JSON of the event's data: the record's state then, with `previous_status` and `status`. */
  data: string;
}

/** The tables of the store, as Kysely sees them. */
export interface Database extends WebhookTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  devices: DevicesTable;
  blacklist_monitors: BlacklistMonitorsTable;
  check_results: CheckResultsTable;
  events: EventsTable;
}

/**
 * Tells which SQL dialect a Kysely instance speaks, so a caller that built its own instance need
 * not say it again. Bun and Deno SQLite dialects reuse Kysely's SqliteAdapter, so they are found too.
 */
export function dialectOf(db: Kysely<Database>): StoreDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  throw new Error('unsupported Kysely dialect: the store runs on PostgreSQL or SQLite');
}
