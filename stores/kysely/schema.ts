import { PostgresAdapter, SqliteAdapter } from 'kysely';
import type { ColumnType, Kysely } from 'kysely';
import type {
  BlacklistStatus,
  DeviceStatus,
  EventType,
  MonitoredKind,
  ProbeName,
  Scheme,
  ServiceType,
  TargetType,
} from '../../core/index.ts';
// Migration 0015's tables (heartbeats) are declared beside their store part.
import type { HeartbeatTables } from './heartbeats/heartbeat-schema.ts';
import type { StatusPageTables } from './status-pages/status-page-tables.ts';
// Migrations 0014's and 0017's tables (channels, their notification queue) and the webhooks' too.
import type { ChannelTables } from './channels/channel-tables.ts';
import type { WebhookTables } from './webhooks/webhook-tables.ts';

/** The SQL databases a `KyselyStore` runs on. */
export type StoreDialect = 'postgres' | 'sqlite';

/**
 * An integer as the drivers hand it back: pg returns int8 as a string (it may exceed 2^53), SQLite's
 * a number (or a bigint when asked to). The store turns each into a number.
 */
export type DbInteger = number | string | bigint;

/** A flag: boolean on PostgreSQL, 0/1 on SQLite, which has no boolean type. */
export type DbFlag = boolean | number;

/**
 * A timestamp: ISO 8601 text on SQLite, and from pg the same text through openKyselyStore's pool
 * (drivers/pg-timestamps.ts), or a Date from a pool of the host's own or a session outside UTC.
 */
export type DbTimestamp = Date | string;

type Id = ColumnType<DbInteger, never, never>;
type Ref = ColumnType<DbInteger, number, number>;
type Flag = ColumnType<DbFlag, DbFlag, DbFlag>;
type Stamp = ColumnType<DbTimestamp, string, string>;
/** A running total the status trigger writes (migrations/timeline-totals.ts); the bench seeds it. */
type RunningTotal = ColumnType<DbInteger, number | undefined, never>;
/** A timestamp that may be null; an insert may leave it out, and the column is then null. */
type NullableStamp = ColumnType<DbTimestamp | null, string | null | undefined, string | null>;
type NullableRef = ColumnType<DbInteger | null, number | null | undefined, number | null>;
/** Text that may be null; an insert may leave it out. */
type NullableText = ColumnType<string | null, string | null | undefined, string | null>;

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
  /** JSON array of location names; null: any one location. */
  check_locations: string | null;
  quorum: number | null;
  quorum_state: 'met' | 'insufficient' | null;
  /** JSON object: the record's `locations`, written with each decision; null without check_locations. */
  location_states: string | null;
  status: DeviceStatus;
  status_since: NullableStamp;
  /** Migration 0013: while an `up` device is `validating`, when that `up` began; null otherwise. */
  up_since: NullableStamp;
  last_checked_at: NullableStamp;
  /** JSON object: the last result of each probe, keyed by probe name. */
  last_results: string;
  consecutive_failures: number;
  /** Null while disabled: only records with a next check can be claimed. */
  next_check_at: NullableStamp;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: NullableStamp;
  /** The last on-demand check request that took effect (`POST /devices/check`). */
  check_requested_at: NullableStamp;
  /**
   * The start of the maintenance window occurrence whose `device.maintenance_started` was sent
   * (docs/engine.md, "Maintenance windows"): entering that occurrence again is silent.
   */
  maintenance_announced: NullableStamp;
  /** Migration 0014: the name people know it by; null for none. */
  name: NullableText;
  /** Migration 0014: JSON array of channel ids; null: every default channel of its user. */
  channel_ids: NullableText;
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
  /** Migration 0006: when the maintenance window covering it began; null outside one. */
  maintenance_since: NullableStamp;
  /** Migration 0006: JSON array, the listings announced before a window; null otherwise. */
  announced_listed_on: ColumnType<string | null, string | null | undefined, string | null>;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: NullableStamp;
  /** JSON array of the zones asked, sorted; null asks every configured zone of the target's type. */
  zones: string | null;
  count_policy_listings: Flag;
  /** JSON array of the listings (core DnsblListing), sorted by zone. */
  listings: string;
  rdns: string | null;
  /** The last on-demand check request that took effect (`POST /blacklist-monitors/check`). */
  check_requested_at: NullableStamp;
  /** Migration 0014: as for devices. */
  name: NullableText;
  channel_ids: NullableText;
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
  /** Migration 0007: the check the row belongs to; null for rows written before it (their own id stands in). */
  check_id: ColumnType<DbInteger | null, number | undefined, number>;
  /** The location that checked, for a device with `check_locations`; null otherwise. */
  check_location: string | null;
}

/**
 * One (device, location) pair of a device with `check_locations`: its own schedule and lease, as a
 * device row has them, and what the location last found, which the quorum decision reads.
 */
export interface DeviceLocationChecksTable {
  device_id: Ref;
  location: string;
  /** Null while the device is disabled. */
  next_check_at: NullableStamp;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: NullableStamp;
  last_ok: Flag | null;
  last_checked_at: NullableStamp;
  response_ms: number | null;
  error: string | null;
  /** When its current run of failures began; null while it passes. */
  failing_since: NullableStamp;
  /** Whether this failing episode was announced with `device.location_failing`. */
  announced: Flag;
  /** Migration 0013: its failed checks in a row; 0 while it passes. */
  failures: ColumnType<number, number | undefined, number>;
}

/** The outbox: status changes to announce, written with the check that caused them. */
export interface EventsTable {
  id: Id;
  user_id: Ref;
  type: EventType;
  /** `channel` for `channel.disabled` (migration 0017's queue writes it). */
  resource_kind: MonitoredKind | 'channel';
  resource_id: Ref;
  created_at: Stamp;
  /** JSON of the event's data: the record's state then, with `previous_status` and `status`. */
  data: string;
}

/** Migration 0006_manage: maintenance windows. */
export interface MaintenanceWindowsTable {
  id: Id;
  user_id: Ref;
  name: string;
  starts_at: NullableStamp;
  ends_at: NullableStamp;
  /** JSON {days, start, duration_s, time_zone}, or null for a one-off window. */
  repeat: string | null;
  /** JSON arrays of ids. */
  device_ids: string;
  all_devices: Flag;
  blacklist_monitor_ids: string;
  all_blacklist_monitors: Flag;
  heartbeat_ids: string; // migration 0015, as all_heartbeats
  all_heartbeats: Flag;
  created_at: Stamp;
}

/** The tables of the store, as Kysely sees them. */
/** One row per worker id: its last heartbeat (docs/engine.md, "Locations"). */
export interface WorkerHeartbeatsTable {
  worker_id: string;
  location: string;
  version: string;
  started_at: Stamp;
  last_seen_at: Stamp;
}

/** Migration 0011: one row per status change of a device (docs/engine.md, "Reports"). */
export interface StatusChangesTable {
  id: Id;
  device_id: Ref;
  from_status: DeviceStatus | null;
  to_status: DeviceStatus;
  at: Stamp;
  /** Migration 0012 (migrations/timeline-totals.ts): the change this one follows, and how long its status lasted. */
  prev_at: ColumnType<DbTimestamp | null, string | null | undefined, never>;
  previous_ms: ColumnType<DbInteger | null, number | null | undefined, never>;
  /** Time in each status from the device's first change up to this one, and `down` changes up to and including it. */
  total_pending_ms: RunningTotal;
  total_up_ms: RunningTotal;
  total_validating_ms: RunningTotal;
  total_down_ms: RunningTotal;
  total_paused_ms: RunningTotal;
  total_maintenance_ms: RunningTotal;
  total_downs: RunningTotal;
}

/** Migration 0011: a device's `down` periods, written by the status triggers. */
export interface IncidentsTable {
  id: Id;
  user_id: Ref;
  /** Migration 0015: one of device_id and heartbeat_id is set. */
  device_id: NullableRef;
  heartbeat_id: NullableRef;
  started_at: Stamp;
  resolved_at: NullableStamp;
  /** JSON `{probe, error, location?}`; null when not known. */
  cause: string | null;
  /** JSON object of each location's verdict; null for a device without `check_locations`. */
  locations: string | null;
  /** Migration 0018: when and by which API key it was acknowledged; null until it is. */
  acknowledged_at: NullableStamp;
  acknowledged_by: NullableRef;
}

/** Migration 0011: a blacklist monitor's listing periods, by zone, written by a trigger. */
export interface ListingPeriodsTable {
  id: Id;
  user_id: Ref;
  monitor_id: Ref;
  zone: string;
  answer: string;
  listed_at: Stamp;
  delisted_at: NullableStamp;
}

/** Migration 0011: response-time rollups, one row per device, probe, location and hour (or UTC day). */
export interface DeviceRollupsTable {
  device_id: Ref;
  probe: string;
  /** '' for a device without `check_locations`. */
  location: string;
  start: Stamp;
  checks: number;
  failures: number;
  timed: number;
  sum_ms: DbInteger;
  min_ms: number | null;
  max_ms: number | null;
  p95_ms: number | null;
  /** JSON object: bucket index → count (core/reports/latency-histogram.ts). */
  histogram: string;
}

/** Migration 0011: how far the rollups went; one row per job. */
export interface ReportProgressTable {
  name: string;
  rolled_until: Stamp;
}

export interface Database extends HeartbeatTables, StatusPageTables, ChannelTables, WebhookTables {
  status_changes: StatusChangesTable;
  incidents: IncidentsTable;
  listing_periods: ListingPeriodsTable;
  device_rollups_hourly: DeviceRollupsTable;
  device_rollups_daily: DeviceRollupsTable;
  report_progress: ReportProgressTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  devices: DevicesTable;
  blacklist_monitors: BlacklistMonitorsTable;
  check_results: CheckResultsTable;
  events: EventsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  device_location_checks: DeviceLocationChecksTable;
  maintenance_windows: MaintenanceWindowsTable;
}

/** The SQL dialect a Kysely instance speaks (Bun's and Deno's SQLite dialects reuse Kysely's SqliteAdapter). */
export function dialectOf(db: Kysely<Database>): StoreDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  throw new Error('unsupported Kysely dialect: the store runs on PostgreSQL or SQLite');
}
