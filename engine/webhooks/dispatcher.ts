import { hostname } from 'node:os';
import {
  systemClock,
  toTimestamp,
  type ClaimedDelivery,
  type Clock,
  type DeliveryOutcome,
  type Logger,
  type WebhookDeliveryStore,
} from '../../core/internal.ts';
import type { Connector } from '../net/connector.ts';
import { nextAttemptAt, RETRY_DELAYS_MS } from './backoff.ts';
import { dispatchRound, roundLoop } from '../outbox-rounds.ts';
import { FailingEndpoints } from './failing-endpoints.ts';
import { webhookRequest } from './payload.ts';
import { sendWebhook, type PostOptions } from './post.ts';

export interface WebhookDispatcherOptions {
  store: WebhookDeliveryStore;
  /** Every delivery connects through it: the guarded connector of docs/engine.md, "Outbound safety". */
  connector: Connector;
  clock?: Clock;
  logger?: Pick<Logger, 'warn' | 'error'> & { info?(message: string): void };
  /** Told of every attempt's outcome once it is recorded (the metrics count them). */
  observe?(outcome: DeliveryOutcome): void;
  /** Kept with each lease, for operators. Default `host:pid`. */
  workerId?: string;
  /** Deliveries in flight at once (each to a different endpoint). Default 20. */
  concurrency?: number;
  /** A whole attempt, connecting included. Default 10 000 ms. */
  requestTimeoutMs?: number;
  /** Waits between failed attempts; the last one failing gives up. Default RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** Events fanned out into deliveries per store call. Default 100. */
  fanOutBatch?: number;
  /** How long `start()` waits between rounds when nothing was due. Default 1000 ms. */
  pollIntervalMs?: number;
  /** For https endpoints signed by an authority of one's own: `{ secureContext }` (or `{ ca }`, slower). */
  tls?: PostOptions['tls'];
}

export interface WebhookDispatcher {
  /** Fans out new events, then delivers everything due now; resolves when those attempts are recorded. */
  runOnce(): Promise<void>;
  /** Runs rounds until `stop()`. */
  start(): void;
  /** Stops claiming; resolves once the attempts in flight (each bounded by its timeout) are recorded. */
  stop(): Promise<void>;
}

/**
 * Delivers webhook events (docs/engine.md, "Events and webhooks"), beside the checks and apart
 * from them: its own loop, its own concurrency bound, and a timeout per attempt, so a slow or dead
 * endpoint costs at most one slot for `requestTimeoutMs` and never delays a check or another
 * endpoint. Any number of dispatchers may share a store: claims are leased, writes are fenced.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { store, connector } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? {};
  const owner = options.workerId ?? `${hostname()}:${process.pid}`;
  const concurrency = options.concurrency ?? 20;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const fanOutBatch = options.fanOutBatch ?? 100;
  const pollMs = options.pollIntervalMs ?? 1_000;
  // A lease outlives the attempt by a margin, so a live worker never loses one to a slow endpoint.
  const leaseMs = timeoutMs * 3;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1)
    throw new RangeError('concurrency must be a positive integer');
  const stopping = new AbortController();
  // Each outage of an endpoint is logged once when it starts and once when a delivery succeeds
  // again; the endpoints followed are bounded (failing-endpoints.ts).
  const failing = new FailingEndpoints(clock, 2 * Math.max(0, ...delays));

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const { webhook, event } = delivery;
    const started = performance.now();
    const request = webhookRequest(delivery, clock.now());
    const answered = await sendWebhook(webhook.url, request, { connector, timeoutMs, tls: options.tls });
    const duration = Math.round(performance.now() - started);
    const outcome =
      answered.error === null
        ? finished('delivered', answered.status, null, duration)
        : failed(delivery, answered.status, answered.error, duration);
    const written = await store.recordDeliveryAttempt(delivery.lease, outcome);
    options.observe?.(outcome);
    if (!written) {
      logger.warn?.(`webhook ${webhook.id}: the lease on event ${event.id} was lost; another worker delivers it`);
      return;
    }
    if (outcome.error === null) {
      if (failing.delivered(webhook.id)) logger.info?.(`webhook ${webhook.id}: delivering again`);
    } else if (failing.failed(webhook.id)) {
      const said = `delivery failed (${outcome.error}); retrying, and saying nothing more until it delivers again`;
      logger.warn?.(`webhook ${webhook.id}: ${said}`);
    }
    if (outcome.state === 'failed') {
      logger.warn?.(
        `webhook ${webhook.id}: gave up delivering event ${event.id} (${event.type}) after ${delivery.attempts + 1} attempts; last error ${outcome.error}`,
      );
    }
  }

  function finished(
    state: 'delivered' | 'failed',
    status: number | null,
    error: string | null,
    duration: number,
  ): DeliveryOutcome {
    const at = toTimestamp(clock.now());
    return { attempted_at: at, state, next_attempt_at: null, response_status: status, error, duration_ms: duration };
  }

  function failed(delivery: ClaimedDelivery, status: number | null, error: string, duration: number): DeliveryOutcome {
    const now = clock.now();
    const next = nextAttemptAt(delivery.attempts + 1, now, delays);
    if (next === null) return finished('failed', status, error, duration);
    return {
      attempted_at: toTimestamp(now),
      state: 'pending',
      next_attempt_at: toTimestamp(next),
      response_status: status,
      error,
      duration_ms: duration,
    };
  }

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = clock.now();
    return store.claimDeliveries({ owner, now: toTimestamp(now), limit, leaseUntil: toTimestamp(now + leaseMs) });
  }

  async function runOnce(): Promise<void> {
    await dispatchRound({
      signal: stopping.signal,
      fanOut: () => store.fanOutEvents(toTimestamp(clock.now()), fanOutBatch),
      batch: fanOutBatch,
      concurrency,
      claim,
      send: attempt,
      failed: (delivery, error) => logger.error?.(`webhook ${delivery.webhook.id}: recording an attempt failed`, error),
    });
  }

  const loop = roundLoop({
    stopping,
    pollMs,
    runOnce,
    failed: (error) => logger.error?.('webhook dispatcher: a round failed', error),
  });
  return { runOnce, start: loop.start, stop: loop.stop };
}
