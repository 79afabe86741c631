/** Webhooks: the endpoints that hear of events, and their delivery attempts. */
import type { Timestamp } from './common.ts';
import type { EventType } from './event-types.ts';

/** How the last delivery to a webhook went: `failing` from its first failed attempt until one succeeds. */
export const WEBHOOK_DELIVERY_STATUSES = ['delivered', 'failing'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * An endpoint that hears of the events of its user (docs/engine.md, "Events and webhooks"), as
 * `GET /webhooks` shows it: never with its secret.
 */
export interface Webhook {
  id: number;
  /** http(s), at most 2048 characters, stored in its WHATWG URL serialisation. */
  url: string;
  /** The event types it receives: non-empty, distinct, in the order of EVENT_TYPES. */
  events: EventType[];
  is_enabled: boolean;
  created_at: Timestamp;
  /** When the last delivery attempt ended; null before the first. */
  last_delivery_at: Timestamp | null;
  last_delivery_status: WebhookDeliveryStatus | null;
  /**
   * Why the last attempt failed (`timeout`, `http_500`, `ECONNREFUSED`, ...); null when it
   * succeeded, or before any.
   */
  last_delivery_error: string | null;
  /** When the current run of failed attempts began; null while deliveries succeed. */
  failing_since: Timestamp | null;
}

/** One delivery attempt to a webhook, as `GET /webhooks/deliveries` lists it. */
export interface WebhookAttempt {
  /** Larger ids are later attempts. */
  id: number;
  /** The event delivered: the `webhook-id` header the endpoint received. */
  event_id: number;
  event_type: EventType;
  /** 1 for the first attempt at this event, 2 for its first retry, ... */
  attempt: number;
  /** When the attempt ended. */
  attempted_at: Timestamp;
  /** The HTTP status the endpoint answered; null when it never answered. */
  http_status: number | null;
  /** Why the attempt failed; null when it was delivered (a 2xx). */
  error: string | null;
  /** How long the attempt took, connecting included, in whole milliseconds. */
  duration_ms: number | null;
}

/**
 * The answer of `POST /webhooks/create`, or of an update with `rotate_secret: true`: the only
 * answers that show the signing secret.
 */
export interface CreatedWebhook extends Webhook {
  /** `whsec_` + base64 of 32 random bytes; the HMAC key is the decoded bytes. */
  secret: string;
}

/** A webhook as validated from a create request, secret included, before the store gives it an id. */
export type NewWebhook = Omit<CreatedWebhook, 'id'>;
