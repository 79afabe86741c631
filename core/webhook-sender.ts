import type { Timestamp } from './records/index.ts';

/** A webhook as a test delivery needs it: where to send, and the secret to sign with. */
export interface WebhookEndpoint {
  id: number;
  url: string;
  secret: string;
}

/** What `POST /webhooks/test` answers: how its one attempt went. */
export interface WebhookTestResult {
  /** True when the endpoint answered a 2xx. */
  delivered: boolean;
  /** The HTTP status the endpoint answered; null when it never answered. */
  http_status: number | null;
  /** Why the attempt failed (`timeout`, `http_500`, `ECONNREFUSED`, `forbidden_address`, ...); null when delivered. */
  error: string | null;
  /** How long the attempt took, connecting included, in whole milliseconds. */
  duration_ms: number;
  /** When the attempt ended. */
  attempted_at: Timestamp;
}

/**
 * Sends a signed `webhook.test` event to an endpoint at once and says how it went; never rejects
 * for the endpoint's sake. The engine makes one (`createWebhookSender`, monitoring-api/engine)
 * with the same outbound policy as its deliveries.
 */
export type WebhookSender = (webhook: WebhookEndpoint) => Promise<WebhookTestResult>;
