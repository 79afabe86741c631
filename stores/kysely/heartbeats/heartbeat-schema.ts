import type { ColumnType } from 'kysely';
import type { HeartbeatStatus, PingKind } from '../../../core/index.ts';

// The tables of migration 0015 (migrations/0015-heartbeats.ts, with 0019's `channel_ids`), as
// Kysely sees them. The driver types are schema.ts's (DbInteger, DbFlag, DbTimestamp), written
// again here: schema.ts joins these tables into its Database, so importing from it would be a
// cycle.

type DbInteger = number | string | bigint;
type DbFlag = boolean | number;
type DbTimestamp = Date | string;

type Id = ColumnType<DbInteger, never, never>;
type Ref = ColumnType<DbInteger, number, number>;
type Flag = ColumnType<DbFlag, DbFlag, DbFlag>;
type Stamp = ColumnType<DbTimestamp, string, string>;
type NullableStamp = ColumnType<DbTimestamp | null, string | null | undefined, string | null>;
type NullableInteger = ColumnType<DbInteger | null, number | null | undefined, number | null>;

export interface HeartbeatsTable {
  id: Id;
  user_id: Ref;
  name: string | null;
  period_s: number | null;
  schedule: string | null;
  time_zone: string;
  grace_s: number;
  max_runtime_s: number | null;
  min_runtime_s: number | null;
  is_enabled: Flag;
  /** JSON array of channel ids (migration 0019); null: the user's default channels. */
  channel_ids: string | null;
  ping_token: string;
  status: HeartbeatStatus;
  status_since: Stamp;
  last_ping_at: NullableStamp;
  last_duration_ms: NullableInteger;
  next_due_at: NullableStamp;
  created_at: Stamp;
  last_success_at: NullableStamp;
  /** JSON object: run id ('' for none) → when it started. */
  runs: ColumnType<string, string | undefined, string>;
  down_cause: string | null;
  last_body: string | null;
  maintenance_since: NullableStamp;
  /** When the engine is to judge its lateness; null while nothing is awaited. */
  late_check_at: NullableStamp;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: NullableStamp;
  /** Pings ever recorded: past PINGS_KEPT, each batch trims the oldest. */
  ping_count: ColumnType<DbInteger, number | undefined, number>;
}

export interface HeartbeatPingsTable {
  id: Id;
  heartbeat_id: Ref;
  kind: PingKind;
  exit_status: number | null;
  received_at: Stamp;
  duration_ms: NullableInteger;
  remote_addr: string | null;
  user_agent: string | null;
  body: string | null;
  rid: string | null;
}

type Total = ColumnType<DbInteger, number | undefined, never>;

/** A heartbeat's timeline with running totals per state, as `status_changes` is a device's. */
export interface HeartbeatStatusChangesTable {
  id: Id;
  heartbeat_id: Ref;
  from_status: string | null;
  to_status: string;
  at: Stamp;
  prev_at: NullableStamp;
  previous_ms: NullableInteger;
  total_new_ms: Total;
  total_up_ms: Total;
  total_started_ms: Total;
  total_down_ms: Total;
  total_paused_ms: Total;
  total_maintenance_ms: Total;
  total_downs: Total;
}

export interface HeartbeatTables {
  heartbeats: HeartbeatsTable;
  heartbeat_pings: HeartbeatPingsTable;
  heartbeat_status_changes: HeartbeatStatusChangesTable;
}
