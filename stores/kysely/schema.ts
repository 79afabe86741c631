import { PostgresAdapter, SqliteAdapter } from 'kysely';
import type { ColumnType, Kysely } from 'kysely';
import type { BlacklistStatus, Scheme, ServiceType, TargetType } from '../../core/records.ts';
import type { TemporaryEventTables, WebhookTables } from './webhook-schema.ts';

/** The SQL databases a `KyselyStore` runs on. */
export type StoreDialect = 'postgres' | 'sqlite';

/**
 * An integer as the drivers hand it back: pg returns int8 as a string (it may exceed 2^53),
 * better-sqlite3 a number, or a bigint in safe-integers mode. The store turns each into a number.
 */
export type DbInteger = number | string | bigint;

/** A flag: boolean on PostgreSQL, 0/1 on SQLite, which has no boolean type. */
export type DbFlag = boolean | number;

/** A timestamp: a Date from pg (timestamptz), ISO 8601 text on SQLite. */
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
}

/** The tables of the store, as Kysely sees them. */
export interface Database extends WebhookTables, TemporaryEventTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  devices: DevicesTable;
  blacklist_monitors: BlacklistMonitorsTable;
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
