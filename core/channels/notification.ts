/**
 * What a channel is told: one message's worth of events (docs/notifications.md, "Messages"). The
 * engine's channel kinds turn it into each service's request; what falls due together for one
 * channel is one notification, so a datacenter outage is one message rather than two hundred.
 */
import type { Timestamp } from '../records/common.ts';
import type { MonitoringEvent } from '../records/events.ts';

/**
 * Why an item is sent: its `event` itself, a `reminder` that the incident is still open, an
 * `escalation` (the channel hears of an incident open this long unacknowledged), an
 * `acknowledgement` of it, or a `test` message (`POST /channels/test`).
 */
export const NOTIFICATION_REASONS = ['event', 'reminder', 'escalation', 'acknowledgement', 'test'] as const;
export type NotificationReason = (typeof NOTIFICATION_REASONS)[number];

/** A message lists at most this many items; the rest are counted ("… and 180 more"). */
export const MAX_LISTED_ITEMS = 20;

/**
 * The incident an item belongs to: a device's `down` period, a blacklist monitor's listing. Its id,
 * with the kind of record, names it in PagerDuty's `dedup_key` and in the Message-ID of its mails,
 * so the recovery finds the down without anything stored for it.
 */
export interface NotificationIncident {
  /** Unique among the incidents of its kind of record. */
  id: number;
  opened_at: Timestamp;
  /** Set once it closed (a recovery says how long it lasted); null while open. */
  closed_at: Timestamp | null;
  /** When someone acknowledged it; null when no one has. */
  acknowledged_at: Timestamp | null;
}

/** An event, or a reminder, escalation or acknowledgement of the incident it opened. */
export interface EventItem {
  reason: Exclude<NotificationReason, 'test'>;
  /** The event (for a reminder, escalation or acknowledgement: the one that opened the incident). */
  event: MonitoringEvent;
  /** Null for an event that belongs to none (a pause, a TLS warning). */
  incident: NotificationIncident | null;
}

/** A test message: it carries no event, only the channel it tests. */
export interface TestItem {
  reason: 'test';
  channel: { id: number; name: string };
}

export type NotificationItem = EventItem | TestItem;

/** One message to one channel. */
export interface Notification {
  /** The moment the message speaks of, when it fell due: "still down for 2 h" counts to it. */
  at: Timestamp;
  /** Oldest first. A kind renders at most MAX_LISTED_ITEMS of them. */
  items: NotificationItem[];
  /** How many items fell due together: at least `items.length` (the dispatcher may pass only the first). */
  total: number;
}
