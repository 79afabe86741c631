import type { ColumnType } from 'kysely';
import type { ChannelDeliveryStatus, ChannelMessageKind, ChannelType } from '../../../core/index.ts';
import type { WebhookEventFanoutsTable, WebhookFanoutFloorTable } from '../webhooks/webhook-tables.ts';

// The tables of migrations 0014 (channels, their attempts) and 0017 (the notification queue), as
// Kysely sees them. The driver types are schema.ts's (DbInteger, DbFlag, DbTimestamp), written
// again here: schema.ts joins these tables into its Database, so importing from it would be a cycle.

type DbInteger = number | string | bigint;
type DbFlag = boolean | number;
type DbTimestamp = Date | string;

type Id = ColumnType<DbInteger, never, never>;
type Ref = ColumnType<DbInteger, number, number>;
type Flag = ColumnType<DbFlag, DbFlag, DbFlag>;
type Stamp = ColumnType<DbTimestamp, string, string>;
type NullableStamp = ColumnType<DbTimestamp | null, string | null | undefined, string | null>;
/** Text that may be null; an insert may leave it out. */
type NullableText = ColumnType<string | null, string | null | undefined, string | null>;

/** Migration 0014: channels (docs/notifications.md). */
export interface ChannelsTable {
  id: Id;
  user_id: Ref;
  name: string;
  type: ChannelType;
  /** JSON object: the type's config, secrets included. */
  config: string;
  /** JSON array of event types. */
  events: string;
  is_default: Flag;
  remind_every_s: number | null;
  escalate_after_s: number | null;
  send_recovery: Flag;
  is_enabled: Flag;
  created_at: Stamp;
  last_delivery_at: NullableStamp;
  last_delivery_status: ColumnType<
    ChannelDeliveryStatus | null,
    ChannelDeliveryStatus | null | undefined,
    ChannelDeliveryStatus | null
  >;
  last_delivery_error: NullableText;
  failing_since: NullableStamp;
  disabled_reason: NullableText;
}

/** Migration 0014: one row per attempt to send a channel a message. */
export interface ChannelAttemptsTable {
  id: Id;
  channel_id: Ref;
  kind: ChannelMessageKind;
  /** JSON arrays: the events the message told of, and their types. */
  event_ids: string;
  event_types: string;
  attempt: number;
  attempted_at: Stamp;
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

/** Migration 0017: one notification per event and channel that serves it. */
export interface NotificationsTable {
  id: Id;
  channel_id: Ref;
  event_id: Ref;
  /** `dropped`: a reminder or escalation whose incident closed or was acknowledged first. */
  status: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Stamp;
  /** Migration 0018: why it is sent, a reminder's number, and when it was scheduled. */
  reason: ColumnType<QueuedReason, QueuedReason | undefined, QueuedReason>;
  seq: ColumnType<number, number | undefined, number>;
  due_at: NullableStamp;
  /** Migration 0021: attempts that carried it and may have reached the service. */
  reached_attempts: ColumnType<number, number | undefined, number>;
}

/** A queued notification's reason: a test message is never queued. */
export type QueuedReason = 'event' | 'escalation' | 'reminder' | 'acknowledgement';

/** Migration 0017: a channel's lease and grouping window. */
export interface ChannelQueueTable {
  channel_id: Ref;
  next_message_at: NullableStamp;
  lease_token: NullableText;
  lease_owner: NullableText;
  lease_expires_at: NullableStamp;
}

/** The channels' tables, by name: schema.ts's Database extends this. */
export interface ChannelTables {
  channels: ChannelsTable;
  channel_attempts: ChannelAttemptsTable;
  notifications: NotificationsTable;
  channel_queue: ChannelQueueTable;
  channel_event_fanouts: WebhookEventFanoutsTable;
  channel_fanout_floor: WebhookFanoutFloorTable;
}
