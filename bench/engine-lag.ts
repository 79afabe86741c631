import { sql } from 'kysely';
import type { Clock, MonitoringStore, WebhookDeliveryStore } from '../core/index.ts';
import { createMonitoringEngine } from './compiled.ts';
import type { OpenedKyselyStore } from '../stores/kysely/index.ts';

/**
 * A clock that runs `factor` times faster than real time from the moment it is made: an engine
 * on it lives through five minutes in thirty seconds.
 */
export function fastClock(factor: number): Clock {
  const startMs = Date.now();
  const startPerf = performance.now();
  return { now: () => Math.round(startMs + (performance.now() - startPerf) * factor) };
}

export interface LagResult {
  checks: number;
  /** Devices in the table: the load divided by the compression. */
  devices: number;
  /** Checks a whole run should make: every device once per interval of the fast clock. */
  expected: number;
  /** Scheduling lag (claim time minus due time), in seconds of the engine's clock. */
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** The store as it is, with the lag of every device claim noted. */
function measuringLag(
  store: MonitoringStore & WebhookDeliveryStore,
  lags: number[],
): MonitoringStore & WebhookDeliveryStore {
  return {
    async claimDueDevices(claim) {
      const claimed = await store.claimDueDevices(claim);
      const now = Date.parse(claim.now);
      for (const { due_at } of claimed) lags.push(now - Date.parse(due_at));
      return claimed;
    },
    claimDueBlacklistMonitors: (claim) => store.claimDueBlacklistMonitors(claim),
    recordDeviceChecks: (checks) => store.recordDeviceChecks(checks),
    recordBlacklistChecks: (checks) => store.recordBlacklistChecks(checks),
    setEnabled: (kind, id, enabled, at) => store.setEnabled(kind, id, enabled, at),
    deleteCheckResultsBefore: (before, limit) => store.deleteCheckResultsBefore(before, limit),
    fanOutEvents: (now, limit) => store.fanOutEvents(now, limit),
    claimDeliveries: (claim) => store.claimDeliveries(claim),
    recordDeliveryAttempt: (lease, outcome) => store.recordDeliveryAttempt(lease, outcome),
  };
}

/**
 * Scheduling lag under the load of `load` devices at a 60 s interval, over `virtualS` seconds,
 * compressed `factor` times: the engine runs on a clock `factor` times faster than real time,
 * with its poll interval and write delay shortened alike, so it sees the schedule of a real run
 * (due checks spread over the interval, a claim poll every second, five minutes) in a
 * `factor`th of the time. Compressing time alone would also ask `factor` times the checks per
 * real second of the worker, a different load (a first try with 10,000 devices at 10x asked
 * 1,667 probes a second and measured a worker that cannot keep up); so the table holds
 * `load / factor` devices, which the fast clock makes due as often, in real time, as `load`
 * devices are at 60 s.
 *
 * Every device is a TCP probe of a loopback listener, its name answered 127.0.0.1 by an
 * in-process lookup, on PostgreSQL. They start due spread over the first interval, as a running
 * system has them (not all at once, as right after an import). What the compression does not
 * scale is the work: 1 ms of real time spent claiming, probing or writing counts as `factor` ms
 * of lag, so the figure is an upper bound of what a real run would show.
 */
export async function benchLag(
  opened: OpenedKyselyStore,
  tcpPort: number,
  load: number,
  virtualS: number,
  factor: number,
): Promise<LagResult> {
  const count = Math.ceil(load / factor);
  const clock = fastClock(factor);
  const t0 = clock.now();
  const user = await opened.store.createUser({ name: 'lag', created_at: new Date(t0).toISOString() });
  await sql`insert into devices (user_id, target_type, target_value, service_type, scheme, port, proxy_enabled, check_public_http,
      check_public_https, check_public_tls, check_origin_http, check_origin_tls, is_enabled, created_at, next_check_at, check_interval_s,
      status, last_results)
    select ${user.id}, 'domain', 'd' || n || '.lag.bench.test', 'tcp', null, ${tcpPort}, false, false, false, false, false, false, true,
      ${new Date(t0).toISOString()}, cast(${new Date(t0).toISOString()} as timestamptz) + (n * interval '60 seconds') / ${count},
      60, 'pending', '{}'
    from generate_series(1, ${count}) as n`.execute(opened.db);

  const lags: number[] = [];
  const engine = createMonitoringEngine({
    store: measuringLag(opened.store, lags),
    clock,
    allowPrivateTargets: true,
    lookup: async () => ['127.0.0.1'],
    dnsblZones: [],
    dnsblDomainZones: [],
    pollIntervalMs: Math.round(1000 / factor),
    writeDelayMs: Math.round(50 / factor),
  });
  engine.start();
  await new Promise((resolve) => setTimeout(resolve, (virtualS * 1000) / factor));
  await engine.stop();
  // The devices go with the run: left due in the database, they would be claimed by the
  // claim-and-record cycle's workers that run next, and counted among its records. (Their
  // results go with the cycle's reset, which empties check_results.)
  await sql`delete from devices where user_id = ${user.id}`.execute(opened.db);
  const sorted = lags.sort((a, b) => a - b);
  const s = (ms: number) => ms / 1000;
  return {
    checks: sorted.length,
    devices: count,
    expected: Math.floor((count * virtualS) / 60),
    p50: s(percentile(sorted, 0.5)),
    p99: s(percentile(sorted, 0.99)),
    max: s(sorted[sorted.length - 1] ?? Number.NaN),
  };
}
