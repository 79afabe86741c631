import type { ChannelSender } from './channel-sender.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import type { RateLimitPolicy, RateLimiter } from './store/rate-limiter.ts';
import type { Store } from './store/store.ts';
import type { WebhookSender } from './webhook-sender.ts';

export interface MonitoringApiOptions {
  store: Store;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: a `MemoryRateLimiter` in this process. Use a shared one behind a load balancer. */
  rateLimiter?: RateLimiter;
  /** Requests a key may make per window, unless the key has its own. Default 120 per 60 s. */
  rateLimit?: RateLimitPolicy;
  /** Failed authentications one client address may make per window. Default 30 per 60 s. */
  authFailureLimit?: RateLimitPolicy;
  /** Where the API is mounted. Default `/v1`. */
  basePath?: string;
  /** Proxies (addresses or CIDR blocks) whose forwarding headers are believed. Default: none. */
  trustProxy?: readonly string[];
  /** Largest request body in bytes. Default 16 KiB. */
  bodyLimit?: number;
  /** Accept targets that are not publicly routable, for monitoring a private network. Default false. */
  allowPrivateTargets?: boolean;
  logger?: Logger;
  /** How long a verified key is trusted before it is read again (bounds how late a revocation made
   * elsewhere is seen). Default 5000 ms; 0 reads the store on every request. */
  keyCacheTtlMs?: number;
  /**
   * How long a status page's figures that move with time alone (availability with downtime in
   * it, today's response times) may be shown as kept rather than read again (docs/status-pages.md,
   * "Caching and conditional requests"). Default 60000 ms.
   */
  statusFiguresMaxAgeMs?: number;
  /**
   * Records a list without `limit` reads from the store per query. Such a list is streamed batch
   * by batch, so the server holds one batch at a time whatever the count; a larger batch makes
   * fewer round trips to the database and holds more. An integer from 1 to 1000 (the largest
   * page, so a store never sees a larger `limit` than a page's); default 500.
   */
  listBatchSize?: number;
  /**
   * The DNSBL zones the engine asks for IP targets, and for domain targets: a monitor's `zones`
   * must be among them. Give the engine's own `dnsblZones` and `dnsblDomainZones` when they are
   * not the defaults (DEFAULT_DNSBL_ZONES, DEFAULT_DNSBL_DOMAIN_ZONES).
   */
  dnsblZones?: readonly string[];
  dnsblDomainZones?: readonly string[];
  /**
   * Sends the signed `webhook.test` event of `POST /webhooks/test`. Without it that route
   * answers 503 `webhook_test_unavailable`. `createWebhookSender` of monitoring-api/engine makes
   * one; give it the same `allowPrivateTargets` as the API.
   */
  webhookSender?: WebhookSender;
  /**
   * The URL clients reach this server at (`https://monitor.example.com`), under which a
   * heartbeat's `ping_url` is given: `<publicUrl>/ping/<token>`. Default: the origin of the request
   * that reads the heartbeat (docs/heartbeats.md, "The resource").
   */
  publicUrl?: string;
  /**
   * Pings waiting to be written beyond which a ping is answered 503 at once, so that a slow
   * store never holds an unbounded queue (docs/heartbeats.md, "Durability"). Default 10,000.
   */
  pingQueueLimit?: number;
  /**
   * Sends the test message of `POST /channels/test`, and says whether this server can send mail
   * (docs/notifications.md). Without it that route answers 503 `channel_test_unavailable`, and an
   * `email` channel is refused with 400 `email_unavailable`, as it is when `email` is false. The
   * engine's channel sender makes one; give it the same `allowPrivateTargets` as the API.
   */
  channelSender?: ChannelSender;
}

export const DEFAULTS = {
  rateLimit: { limit: 120, windowSeconds: 60 },
  authFailureLimit: { limit: 30, windowSeconds: 60 },
  basePath: '/v1',
  bodyLimit: 16 * 1024,
  keyCacheTtlMs: 5_000,
  statusFiguresMaxAgeMs: 60_000,
  listBatchSize: 500,
  pingQueueLimit: 10_000,
} as const;

/** The largest list batch: the largest page (`limit=1000`), which every store must serve. */
export const MAX_LIST_BATCH_SIZE = 1_000;

/** The list batch size, checked when the API is made: a bad one would fail every long list. */
export function checkListBatchSize(size: number): number {
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_LIST_BATCH_SIZE) {
    throw new TypeError(`listBatchSize must be an integer from 1 to ${MAX_LIST_BATCH_SIZE}, got ${String(size)}`);
  }
  return size;
}

/** A base path is `/segment[/segment...]` without a trailing slash. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new TypeError(`basePath must look like /v1 or /api/monitoring/v1, got ${JSON.stringify(basePath)}`);
  }
  return trimmed;
}

/** A public URL: http or https, with no query or fragment; kept without its trailing slashes. */
export function normalizePublicUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`publicUrl must be an http or https URL, got ${JSON.stringify(url)}`);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search !== '' || parsed.hash !== '') {
    throw new TypeError(`publicUrl must be an http or https URL without query or fragment, got ${JSON.stringify(url)}`);
  }
  return parsed.href.replace(/\/+$/, '');
}
