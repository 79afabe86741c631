import type { ClaimedDelivery } from '../../core/index.ts';
import { signWebhook } from './signature.ts';

/** What is POSTed for one attempt: the body and the Standard Webhooks headers. */
export interface WebhookRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The request for one attempt at a delivery. The body says when the event happened
 * (`timestamp`, the event's `created_at`) and is the same on every attempt; `webhook-timestamp`
 * is the attempt's own time, so a receiver's replay window (5 minutes, usually) accepts a retry
 * made a day later. `webhook-id` is the event's id: the same on every retry, and per endpoint
 * unique, so receivers can drop the duplicates that at-least-once delivery brings.
 */
export function webhookRequest(delivery: Pick<ClaimedDelivery, 'event' | 'webhook'>, nowMs: number): WebhookRequest {
  const { event, webhook } = delivery;
  const body = JSON.stringify({ type: event.type, timestamp: event.created_at, data: event.data });
  const id = String(event.id);
  const timestamp = Math.floor(nowMs / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'monitoring-api-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(webhook.secret, id, timestamp, body),
    },
  };
}
