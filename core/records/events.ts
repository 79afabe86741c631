/** Events: the status changes written to the outbox and announced to webhooks and channels. */
import type { BlacklistMonitor } from './blacklist-monitors.ts';
import type { Channel } from './channels.ts';
import type { Timestamp } from './common.ts';
import type { Device } from './devices.ts';
import type { Heartbeat, HeartbeatDownCause } from './heartbeats.ts';
import type { EventType } from './event-types.ts';

/**
 * What `heartbeat.down` and `heartbeat.up` add to the heartbeat (docs/webhooks.md, "Payloads"): why
 * it went down (null for `up`), the start of the last ping's body (1,000 characters at most), and
 * for the cause `exit_status` the non-zero status the job reported (null otherwise).
 */
export interface HeartbeatEventFields {
  cause: HeartbeatDownCause | null;
  last_ping_body: string | null;
  exit_status: number | null;
}

/**
 * A status change as it is announced: the record's state at that moment, with the status before
 * and after (`last_status` for a blacklist monitor). For `channel.disabled`, the channel as
 * answers show it (its secrets masked), `disabled_reason` saying why, from `enabled` to `disabled`.
 */
export type EventData =
  | ((Device | BlacklistMonitor | (Heartbeat & HeartbeatEventFields)) & {
      previous_status: string | null;
      status: string | null;
    })
  | (Channel & { previous_status: 'enabled'; status: 'disabled' });

/** One event in the outbox. Written with the status change that caused it, in one transaction. */
export interface MonitoringEvent {
  id: number;
  type: EventType;
  /** The owner of the record: the webhooks and channels that hear of it are theirs. */
  user_id: number;
  created_at: Timestamp;
  data: EventData;
}

/** An event as the engine hands it to the store with a check; the store fills in id and owner. */
export type NewMonitoringEvent = Omit<MonitoringEvent, 'id' | 'user_id'>;
