/** Channels: where people are told of events (docs/notifications.md), beside webhooks. */
import type { Timestamp } from './common.ts';
import type { EventType } from './event-types.ts';

/** The kinds of channel, each with its own `config` (docs/notifications.md, "Channel types"). */
export const CHANNEL_TYPES = ['email', 'slack', 'discord', 'teams', 'telegram', 'pagerduty', 'ntfy'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** PagerDuty's event severities (Events API v2), the `severity` of a `pagerduty` channel. */
export const PAGERDUTY_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type PagerDutySeverity = (typeof PAGERDUTY_SEVERITIES)[number];

/** Each type's settings, as stored. Secret fields are shown masked in answers. */
export interface ChannelConfigs {
  email: { to: string[] };
  slack: { webhook_url: string };
  discord: { webhook_url: string };
  teams: { webhook_url: string };
  telegram: { bot_token: string; chat_id: string };
  pagerduty: { routing_key: string; severity: PagerDutySeverity };
  ntfy: { server_url: string; topic: string; token: string | null };
}
export type ChannelConfig = ChannelConfigs[ChannelType];

/** How the last delivery to a channel went, as for webhooks: `failing` until one succeeds. */
export const CHANNEL_DELIVERY_STATUSES = ['delivered', 'failing'] as const;
export type ChannelDeliveryStatus = (typeof CHANNEL_DELIVERY_STATUSES)[number];

/** A channel as `GET /channels` shows it: its secrets masked (docs/notifications.md, "Channels"). */
export interface Channel {
  id: number;
  /** 1 to 100 characters. */
  name: string;
  type: ChannelType;
  /** The type's settings, each secret shown as `…` and its last four characters. */
  config: ChannelConfig;
  /** The event types it is told of: non-empty, distinct, in the order of EVENT_TYPES. */
  events: EventType[];
  /** Serves every record of its user whose `channel_ids` is null. */
  is_default: boolean;
  /** While an incident stays open, a "still down" message this often; null for none. */
  remind_every_s: number | null;
  /** Told of an incident only once it has been open this long unacknowledged; null: at once. */
  escalate_after_s: number | null;
  /** Whether recoveries are sent. */
  send_recovery: boolean;
  is_enabled: boolean;
  created_at: Timestamp;
  last_delivery_at: Timestamp | null;
  last_delivery_status: ChannelDeliveryStatus | null;
  last_delivery_error: string | null;
  failing_since: Timestamp | null;
  /** Why the server disabled it (`http_404`, `http_410`, `http_401`, `http_403`); null otherwise. */
  disabled_reason: string | null;
}

/**
 * A channel as validated from a create request, before the store gives it an id: its `config` in
 * full, secrets included. A store hands channels back in this form too (with their id); the API
 * masks the secrets in every answer (docs/notifications.md, "Secrets").
 */
export type NewChannel = Omit<Channel, 'id'>;

/**
 * What a message to a channel was (docs/notifications.md, "Deliveries"): `events`, one event or
 * several grouped (an escalation is such a message, sent late); `reminder`, an incident still
 * open; `acknowledgement`, an incident acknowledged (PagerDuty).
 */
export const CHANNEL_MESSAGE_KINDS = ['events', 'reminder', 'acknowledgement'] as const;
export type ChannelMessageKind = (typeof CHANNEL_MESSAGE_KINDS)[number];

/** One attempt to send a message to a channel, as `GET /channels/deliveries` lists it. */
export interface ChannelAttempt {
  /** Larger ids are later attempts. */
  id: number;
  kind: ChannelMessageKind;
  /** The events the message told of, ascending: one, several grouped, or the event that opened a reminded incident. */
  event_ids: number[];
  /** Their types, distinct, in the order of EVENT_TYPES. */
  event_types: EventType[];
  /** 1 for the first attempt at this message, 2 for its first retry, ... */
  attempt: number;
  /** When the attempt ended. */
  attempted_at: Timestamp;
  /** The HTTP status the service answered; null when none came (an email has none). */
  http_status: number | null;
  /** Why the attempt failed (`timeout`, `http_429`, `ECONNREFUSED`, ...); null when it was delivered. */
  error: string | null;
  /** How long the attempt took, connecting included, in whole milliseconds. */
  duration_ms: number | null;
}
