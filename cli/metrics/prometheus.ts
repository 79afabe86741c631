import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ROUTES, type RateLimiter, type RequestLogEntry } from '../../core/internal.ts';
import type { EngineGauges, EngineMetrics } from '../../engine/index.ts';

/** Seconds: from a fast local answer to a request that waited on a slow database. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: on time to an hour late, as the summary line's buckets. */
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600];
/** Seconds: a store round trip, from a local SQLite to a busy PostgreSQL. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

const KINDS = ['device', 'blacklist_monitor', 'heartbeat'] as const;

/** A counter's series for label values known in advance, at 0: they show before their first event. */
function startAtZero<T extends string>(counter: Counter<T>, series: readonly Partial<Record<T, string>>[]): void {
  for (const labels of series) counter.inc(labels, 0);
}

/**
 * prom-client's process metrics, less its gauges named as counters: `nodejs_active_handles_total`,
 * `nodejs_active_requests_total` and `nodejs_active_resources_total` count what is active now, a
 * gauge, under a name that says counter, which promtool's `check metrics` warns about and
 * `rate()` would misread. Their per-type gauges (`nodejs_active_handles{type}`, ...) stay: a sum of
 * those is the total.
 */
function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const metric of registry.getMetricsAsArray()) {
    if (metric instanceof Gauge && metric.name.endsWith('_total')) registry.removeSingleMetric(metric.name);
  }
}

/** What `serve` counts of its API: answered requests, and its rate limiter's decisions. */
export interface ApiMetrics {
  /** One answered request, from the request log. */
  request(entry: RequestLogEntry): void;
  /** The limiter the API is given: the same decisions, counted. */
  countingLimiter(inner: RateLimiter): RateLimiter;
}

/**
 * The command's Prometheus metrics (docs/operations.md, "Metrics"), through prom-client. The core
 * and the engine know nothing of it: the API is observed through its request log and its rate
 * limiter, the engine through its `metrics` seam. Each process registers only the families it
 * fills: the API's with `api()` (serve), the engine's with `engine()` (a worker), so a worker
 * lists no API family that could never have a sample. Label values are bounded: a route of the
 * route table (or `other`), a status, a kind, a probe, a verdict; never a target, an id or a path.
 */
export class PrometheusMetrics {
  readonly registry = new Registry();

  constructor() {
    collectProcessMetrics(this.registry);
  }

  /** The API's metrics, registered now; `basePath` is where the route table's paths start. */
  api(basePath: string): ApiMetrics {
    const registry = this.registry;
    const routes = new Map(ROUTES.map((route) => [`${basePath}${route.path}`, route.path]));
    const requests = new Counter({
      name: 'monitoring_api_requests_total',
      help: 'API requests answered, by method and route of the route table (other: none) and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    const requestSeconds = new Histogram({
      name: 'monitoring_api_request_duration_seconds',
      help: 'How long API requests took to answer, by method and route.',
      labelNames: ['method', 'route'],
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    });
    const rateLimit = new Counter({
      name: 'monitoring_api_rate_limit_decisions_total',
      help: "Rate-limit decisions: a key's quota (allowed or refused), the failed-authentication throttle (refused).",
      labelNames: ['limit', 'decision'],
      registers: [registry],
    });
    startAtZero(rateLimit, [
      { limit: 'key', decision: 'allowed' },
      { limit: 'key', decision: 'refused' },
      { limit: 'failed_auth', decision: 'refused' },
    ]);
    const count = (bucket: string, cost: number, allowed: boolean) => {
      const limit = bucket.startsWith('key:') ? 'key' : 'failed_auth';
      // A key's quota is decided by its cost-1 consume; the rest are looks (cost 0) or undos.
      const decided = limit === 'key' ? cost === 1 : cost === 0 && !allowed;
      if (decided) rateLimit.inc({ limit, decision: allowed ? 'allowed' : 'refused' });
    };
    return {
      request(entry) {
        // One trailing slash is the same route (docs/contract.md §1). A path outside the route
        // table is counted with method and route both `other` (docs/operations.md, "Metrics").
        const path = entry.path.length > 1 && entry.path.endsWith('/') ? entry.path.slice(0, -1) : entry.path;
        const route = routes.get(path) ?? 'other';
        const method = route === 'other' ? 'other' : entry.method;
        requests.inc({ method, route, status: String(entry.status) });
        requestSeconds.observe({ method, route }, entry.duration_ms / 1000);
      },
      countingLimiter(inner) {
        const limiter: RateLimiter = {
          async consume(bucket, policy, cost = 1) {
            const decision = await inner.consume(bucket, policy, cost);
            count(bucket, cost, decision.allowed);
            return decision;
          },
        };
        if (inner.consumeNow !== undefined) {
          const now = inner.consumeNow.bind(inner);
          limiter.consumeNow = (bucket, policy, cost = 1) => {
            const decision = now(bucket, policy, cost);
            count(bucket, cost, decision.allowed);
            return decision;
          };
        }
        if (inner.close !== undefined) limiter.close = () => inner.close!();
        return limiter;
      },
    };
  }

  /** The engine's seam, filled with this registry's metrics. */
  engine(): EngineMetrics {
    const registry = this.registry;
    const checks = new Counter({
      name: 'monitoring_checks_total',
      help: "Checks written, by kind and verdict (ok, failed: the target's, ours: the worker's).",
      labelNames: ['kind', 'verdict'],
      registers: [registry],
    });
    const probes = new Counter({
      name: 'monitoring_probe_results_total',
      help: 'Probe results written (a DNSBL zone is probe dnsbl), by kind, probe and verdict.',
      labelNames: ['kind', 'probe', 'verdict'],
      registers: [registry],
    });
    const lag = new Histogram({
      name: 'monitoring_scheduling_lag_seconds',
      help: 'How late claimed checks started, by kind.',
      labelNames: ['kind'],
      buckets: LAG_BUCKETS,
      registers: [registry],
    });
    const claimSeconds = new Histogram({
      name: 'monitoring_claim_duration_seconds',
      help: 'How long a claim of due records took the store, by kind.',
      labelNames: ['kind'],
      buckets: STORE_BUCKETS,
      registers: [registry],
    });
    const writeSeconds = new Histogram({
      name: 'monitoring_write_duration_seconds',
      help: 'How long a batched write of checks took the store, by kind and outcome.',
      labelNames: ['kind', 'outcome'],
      buckets: STORE_BUCKETS,
      registers: [registry],
    });
    const writeFailures = new Counter({
      name: 'monitoring_lost_checks_total',
      help: 'Checks lost to a failed write (checked again once their leases lapse), by kind.',
      labelNames: ['kind'],
      registers: [registry],
    });
    const deliveries = new Counter({
      name: 'monitoring_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retrying, given_up).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    const channelMessages = new Counter({
      name: 'monitoring_channel_messages_total',
      help: 'Attempts to send channels their messages, by outcome (delivered, retrying, failed, disabled).',
      labelNames: ['outcome'],
      registers: [registry],
    });
    const deliverySeconds = new Histogram({
      name: 'monitoring_webhook_delivery_duration_seconds',
      help: 'How long webhook delivery attempts took.',
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    });
    startAtZero(
      checks,
      KINDS.flatMap((kind) => (['ok', 'failed', 'ours'] as const).map((verdict) => ({ kind, verdict }))),
    );
    startAtZero(
      writeFailures,
      KINDS.map((kind) => ({ kind })),
    );
    startAtZero(
      deliveries,
      (['delivered', 'retrying', 'given_up'] as const).map((outcome) => ({ outcome })),
    );
    startAtZero(
      channelMessages,
      (['delivered', 'retrying', 'failed', 'disabled'] as const).map((outcome) => ({ outcome })),
    );
    let gauges: EngineGauges | undefined;
    new Gauge({
      name: 'monitoring_checks_in_flight',
      help: 'Checks running now.',
      registers: [registry],
      collect() {
        this.set(gauges?.checksInFlight() ?? 0);
      },
    });
    new Gauge({
      name: 'monitoring_leases_held',
      help: 'Records claimed and not yet written, by kind.',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        for (const kind of KINDS) this.set({ kind }, gauges?.leasesHeld(kind) ?? 0);
      },
    });
    new Gauge({
      name: 'monitoring_resolver_up',
      help: "1 while the workers' DNS server answers, 0 during an outage.",
      registers: [registry],
      collect() {
        this.set(gauges === undefined || gauges.resolverUp() ? 1 : 0);
      },
    });
    return {
      gauges: (given) => void (gauges = given),
      claimed: (kind, _count, durationMs) => claimSeconds.observe({ kind }, durationMs / 1000),
      lag: (kind, lagMs) => lag.observe({ kind }, lagMs / 1000),
      checked(kind, verdict, results) {
        checks.inc({ kind, verdict });
        for (const result of results) probes.inc({ kind, probe: result.probe, verdict: result.verdict });
      },
      written(kind, count, durationMs, failed) {
        writeSeconds.observe({ kind, outcome: failed ? 'failed' : 'written' }, durationMs / 1000);
        if (failed) writeFailures.inc({ kind }, count);
      },
      delivery(outcome) {
        const counted =
          outcome.state === 'delivered' ? 'delivered' : outcome.state === 'pending' ? 'retrying' : 'given_up';
        deliveries.inc({ outcome: counted });
        deliverySeconds.observe(outcome.duration_ms / 1000);
      },
      channelMessage(outcome) {
        channelMessages.inc({ outcome: outcome.state === 'pending' ? 'retrying' : outcome.state });
      },
    };
  }

  /** The text a scrape answers, and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
