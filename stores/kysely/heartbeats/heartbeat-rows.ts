import type { Insertable, Selectable, Updateable } from 'kysely';
import type { HeartbeatDownCause, StoredHeartbeat } from '../../../core/index.ts';
import { lateCheckAt, type HeartbeatState } from '../../../core/internal.ts';
import {
  flagFor,
  nullableStampText,
  parseChannelIds,
  stampText,
  toFlag,
  toId,
  toNullableStamp,
  toStamp,
} from '../rows.ts';
import type { StoreDialect } from '../schema.ts';
import type { HeartbeatsTable } from './heartbeat-schema.ts';

// A heartbeat's row and its state (core/heartbeats/heartbeat-state.ts), both ways.

const nullableNumber = (value: unknown) => (value === null ? null : Number(value));

export function heartbeatFromRow(row: Selectable<HeartbeatsTable>): StoredHeartbeat {
  return {
    id: toId(row.id),
    name: row.name,
    period_s: row.period_s,
    schedule: row.schedule,
    time_zone: row.time_zone,
    grace_s: row.grace_s,
    max_runtime_s: row.max_runtime_s,
    min_runtime_s: row.min_runtime_s,
    is_enabled: toFlag(row.is_enabled),
    channel_ids: parseChannelIds(row.channel_ids, 'heartbeats'),
    ping_token: row.ping_token,
    status: row.status,
    status_since: toStamp(row.status_since),
    last_ping_at: toNullableStamp(row.last_ping_at),
    last_duration_ms: nullableNumber(row.last_duration_ms),
    next_due_at: toNullableStamp(row.next_due_at),
    created_at: toStamp(row.created_at),
  };
}

export function stateFromRow(row: Selectable<HeartbeatsTable>): HeartbeatState {
  return {
    record: heartbeatFromRow(row),
    user_id: toId(row.user_id),
    last_success_at: toNullableStamp(row.last_success_at),
    runs: JSON.parse(row.runs) as Record<string, string>,
    down_cause: row.down_cause as HeartbeatDownCause | null,
    last_body: row.last_body,
    maintenance_since: toNullableStamp(row.maintenance_since),
  };
}

/** Every column a state sets, the lease dropped (any write of a heartbeat ends a claim of it). */
export function stateToRow(dialect: StoreDialect, state: HeartbeatState): Updateable<HeartbeatsTable> {
  const { record } = state;
  const lateCheck = lateCheckAt(state);
  return {
    name: record.name,
    period_s: record.period_s,
    schedule: record.schedule,
    time_zone: record.time_zone,
    grace_s: record.grace_s,
    max_runtime_s: record.max_runtime_s,
    min_runtime_s: record.min_runtime_s,
    is_enabled: flagFor(dialect, record.is_enabled),
    channel_ids: record.channel_ids === null ? null : JSON.stringify(record.channel_ids),
    ping_token: record.ping_token,
    status: record.status,
    status_since: stampText(record.status_since),
    last_ping_at: nullableStampText(record.last_ping_at),
    last_duration_ms: record.last_duration_ms,
    next_due_at: nullableStampText(record.next_due_at),
    last_success_at: nullableStampText(state.last_success_at),
    runs: JSON.stringify(state.runs),
    down_cause: state.down_cause,
    last_body: state.last_body,
    maintenance_since: nullableStampText(state.maintenance_since),
    late_check_at: lateCheck === null ? null : stampText(lateCheck),
    lease_owner: null,
    lease_token: null,
    lease_expires_at: null,
  };
}

export function newStateRow(dialect: StoreDialect, state: HeartbeatState): Insertable<HeartbeatsTable> {
  const row = stateToRow(dialect, state) as Insertable<HeartbeatsTable>;
  return { ...row, user_id: state.user_id, created_at: stampText(state.record.created_at) };
}
