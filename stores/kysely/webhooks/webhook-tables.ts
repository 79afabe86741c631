import type { ColumnType } from 'kysely';
import type { DeliveryState, WebhookDeliveryStatus } from '../../../core/index.ts';

// The webhooks' tables (migrations 0004 and 0007), as Kysely sees them. The driver types are
// schema.ts's (DbInteger, DbFlag, DbTimestamp), written again here: schema.ts joins these tables
// into its Database, so importing from it would be a cycle.

type DbInteger = number | string | bigint;
type DbFlag = boolean | number;
type DbTimestamp = Date | string;

type Id = ColumnType<DbInteger, never, never>;
type Ref = ColumnType<DbInteger, number, number>;
type Flag = ColumnType<DbFlag, DbFlag, DbFlag>;
type Stamp = ColumnType<DbTimestamp, string, string>;
type NullableStamp = ColumnType<DbTimestamp | null, string | null | undefined, string | null>;

/** Migration 0004_webhooks: the endpoints. */
export interface WebhooksTable {
  id: Id;
  user_id: Ref;
  url: string;
  /** JSON array of event types. */
  events: string;
  is_enabled: Flag;
  /** Kept as it is: signing needs it, so it cannot be hashed like an API token. */
  secret: string;
  created_at: Stamp;
  last_delivery_at: NullableStamp;
  last_delivery_status: ColumnType<
    WebhookDeliveryStatus | null,
    WebhookDeliveryStatus | null | undefined,
    WebhookDeliveryStatus | null
  >;
  /** Migration 0007. */
  last_delivery_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 0007. */
  failing_since: NullableStamp;
}

/** Migration 0007: one row per delivery attempt. */
export interface WebhookAttemptsTable {
  id: Id;
  webhook_id: Ref;
  event_id: Ref;
  event_type: string;
  attempt: number;
  attempted_at: Stamp;
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

/** Migration 0004_webhooks: one row per event and endpoint. */
export interface WebhookDeliveriesTable {
  id: Id;
  event_id: Ref;
  webhook_id: Ref;
  attempts: ColumnType<number, number, number>;
  next_attempt_at: Stamp;
  status: DeliveryState;
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  lease_expires_at: NullableStamp;
  last_attempt_at: NullableStamp;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  last_response_status: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Migration 0004_webhooks: events above the floor that were fanned out already. */
export interface WebhookEventFanoutsTable {
  event_id: ColumnType<DbInteger, number, number>;
  fanned_out_at: Stamp;
}

/** Migration 0004_webhooks: one row; every event at or below `event_id` was fanned out. */
export interface WebhookFanoutFloorTable {
  id: ColumnType<number, number, never>;
  event_id: ColumnType<DbInteger, number, number>;
}

/** The webhooks' tables, by name: schema.ts's Database extends this. */
export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_event_fanouts: WebhookEventFanoutsTable;
  webhook_fanout_floor: WebhookFanoutFloorTable;
}
