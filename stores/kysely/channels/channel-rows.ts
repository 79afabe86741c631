import type { Insertable, Selectable } from 'kysely';
import {
  CHANNEL_DELIVERY_STATUSES,
  CHANNEL_MESSAGE_KINDS,
  CHANNEL_TYPES,
  EVENT_TYPES,
  type Channel,
  type ChannelAttempt,
  type ChannelConfig,
  type EventType,
  type NewChannel,
} from '../../../core/index.ts';
import { flagFor, nullableStampText, stampText, toFlag, toId, toNullableStamp, toStamp } from '../rows.ts';
import type { StoreDialect } from '../schema.ts';
import type { ChannelAttemptsTable, ChannelsTable } from './channel-tables.ts';

// Channels and their attempts as rows (migration 0014) and back: the config and the lists as JSON
// text, each read back checked for its shape.

function parseEventTypes(text: string, column: string): EventType[] {
  const value: unknown = JSON.parse(text);
  const known = EVENT_TYPES as readonly unknown[];
  if (!Array.isArray(value) || !value.every((x) => known.includes(x))) {
    throw new Error(`column ${column} does not hold a JSON array of event types`);
  }
  return value as EventType[];
}

function parseConfig(text: string): ChannelConfig {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('column channels.config does not hold a JSON object');
  }
  // Written by this store from a config the API validated for the channel's type.
  return value as ChannelConfig;
}

function oneOf<T extends string>(values: readonly T[], value: string, column: string): T {
  if (!(values as readonly string[]).includes(value))
    throw new Error(`column ${column} holds an unknown value: ${value}`);
  return value as T;
}

export function channelFromRow(row: Selectable<ChannelsTable>): Channel {
  const status = row.last_delivery_status;
  return {
    id: toId(row.id),
    name: row.name,
    type: oneOf(CHANNEL_TYPES, row.type, 'channels.type'),
    config: parseConfig(row.config),
    events: parseEventTypes(row.events, 'channels.events'),
    is_default: toFlag(row.is_default),
    remind_every_s: row.remind_every_s,
    escalate_after_s: row.escalate_after_s,
    send_recovery: toFlag(row.send_recovery),
    is_enabled: toFlag(row.is_enabled),
    created_at: toStamp(row.created_at),
    last_delivery_at: toNullableStamp(row.last_delivery_at),
    last_delivery_status:
      status === null ? null : oneOf(CHANNEL_DELIVERY_STATUSES, status, 'channels.last_delivery_status'),
    last_delivery_error: row.last_delivery_error,
    failing_since: toNullableStamp(row.failing_since),
    disabled_reason: row.disabled_reason,
  };
}

export function channelToRow(dialect: StoreDialect, userId: number, channel: NewChannel): Insertable<ChannelsTable> {
  return {
    user_id: userId,
    name: channel.name,
    type: channel.type,
    config: JSON.stringify(channel.config),
    events: JSON.stringify(channel.events),
    is_default: flagFor(dialect, channel.is_default),
    remind_every_s: channel.remind_every_s,
    escalate_after_s: channel.escalate_after_s,
    send_recovery: flagFor(dialect, channel.send_recovery),
    is_enabled: flagFor(dialect, channel.is_enabled),
    created_at: stampText(channel.created_at),
    last_delivery_at: nullableStampText(channel.last_delivery_at),
    last_delivery_status: channel.last_delivery_status,
    last_delivery_error: channel.last_delivery_error,
    failing_since: nullableStampText(channel.failing_since),
    disabled_reason: channel.disabled_reason,
  };
}

function parseIds(text: string): number[] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((id) => Number.isSafeInteger(id))) {
    throw new Error('column channel_attempts.event_ids does not hold a JSON array of ids');
  }
  return value as number[];
}

export function attemptFromRow(row: Selectable<ChannelAttemptsTable>): ChannelAttempt {
  return {
    id: toId(row.id),
    kind: oneOf(CHANNEL_MESSAGE_KINDS, row.kind, 'channel_attempts.kind'),
    event_ids: parseIds(row.event_ids),
    event_types: parseEventTypes(row.event_types, 'channel_attempts.event_types'),
    attempt: Number(row.attempt),
    attempted_at: toStamp(row.attempted_at),
    http_status: row.http_status,
    error: row.error,
    duration_ms: row.duration_ms,
  };
}
