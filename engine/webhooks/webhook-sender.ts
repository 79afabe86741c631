import { randomUUID } from 'node:crypto';
import {
  systemClock,
  toTimestamp,
  type Clock,
  type WebhookEndpoint,
  type WebhookSender,
  type WebhookTestResult,
} from '../../core/internal.ts';
import type { HostLookup } from '../net/connector.ts';
import { createGuardedConnector } from '../net/guarded-connector.ts';
import { systemLookup } from '../net/system-lookup.ts';
import { contextTrusting } from '../net/trusted-context.ts';
import { sendWebhook } from './post.ts';
import { signWebhook } from './signature.ts';

export interface WebhookSenderOptions {
  /** As the API's and the engine's option of the same name: give all three the same. */
  allowPrivateTargets?: boolean;
  /** DNS servers for the endpoint's host name; the system's resolver when empty. */
  dnsServers?: readonly string[];
  /** Answers host names instead of DNS (tests, or a host with its own resolver). */
  lookup?: HostLookup;
  /** PEM certificates trusted besides Node's list, as the engine's `trustedCa`. */
  trustedCa?: readonly string[];
  /** The whole attempt, connecting included. Default 10 000 ms, as a delivery's. */
  timeoutMs?: number;
  clock?: Clock;
}

/**
 * The sender of `POST /webhooks/test` (MonitoringApiOptions.webhookSender): one attempt, at once,
 * through the guarded connector with the target policy of deliveries. The event is
 * `{"type":"webhook.test","timestamp":...,"data":{"webhook_id":N}}`, signed as every delivery is,
 * with a `webhook-id` of its own (`test_` and a UUID) that no event shares.
 */
export function createWebhookSender(options: WebhookSenderOptions = {}): WebhookSender {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const connector = createGuardedConnector({
    lookup: options.lookup ?? systemLookup(options.dnsServers ?? [], timeoutMs),
    allowPrivateTargets: options.allowPrivateTargets === true,
    lookupTimeoutMs: timeoutMs,
  });
  const tls =
    options.trustedCa !== undefined && options.trustedCa.length > 0
      ? { secureContext: contextTrusting(options.trustedCa) }
      : undefined;
  return async (webhook: WebhookEndpoint): Promise<WebhookTestResult> => {
    const now = clock.now();
    const id = `test_${randomUUID()}`;
    const timestamp = Math.floor(now / 1000);
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: toTimestamp(now),
      data: { webhook_id: webhook.id },
    });
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'monitoring-api-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(webhook.secret, id, timestamp, body),
    };
    const started = performance.now();
    const sent = await sendWebhook(webhook.url, { body, headers }, { connector, timeoutMs, tls });
    return {
      delivered: sent.error === null,
      http_status: sent.status,
      error: sent.error,
      duration_ms: Math.round(performance.now() - started),
      attempted_at: toTimestamp(clock.now()),
    };
  };
}
