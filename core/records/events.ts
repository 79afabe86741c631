/** Events: the status changes written to the outbox and announced to webhooks. */
import type { BlacklistMonitor } from './blacklist-monitors.ts';
import type { Timestamp } from './common.ts';
import type { Device } from './devices.ts';
import type { Heartbeat, HeartbeatDownCause } from './heartbeats.ts';

/** The status changes announced to webhooks (docs/engine.md, "Events and webhooks"). */
export const EVENT_TYPES = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'device.location_failing',
  'blacklist.listed',
  'blacklist.delisted',
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
  'heartbeat.down',
  'heartbeat.up',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What `heartbeat.down` and `heartbeat.up` add to the heartbeat (docs/webhooks.md, "Payloads"): why
 * it went down (null for `up`), and the start of the last ping's body (1,000 characters at most).
 */
export interface HeartbeatEventFields {
  cause: HeartbeatDownCause | null;
  last_ping_body: string | null;
}

/**
 * A status change as it is announced: the record's state at that moment, with the status before
 * and after (`last_status` for a blacklist monitor).
 */
export type EventData = (Device | BlacklistMonitor | (Heartbeat & HeartbeatEventFields)) & {
  previous_status: string | null;
  status: string | null;
};

/** One event in the outbox. Written with the status change that caused it, in one transaction. */
export interface MonitoringEvent {
  id: number;
  type: EventType;
  /** The owner of the record: the webhooks that hear of it are theirs. */
  user_id: number;
  created_at: Timestamp;
  data: EventData;
}

/** An event as the engine hands it to the store with a check; the store fills in id and owner. */
export type NewMonitoringEvent = Omit<MonitoringEvent, 'id' | 'user_id'>;
