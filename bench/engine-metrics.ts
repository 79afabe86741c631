import { PrometheusMetrics } from '../cli/metrics/prometheus.ts';
import { createMonitoringEngine } from './compiled.ts';
import { QueueStore } from './engine-queue-store.ts';
import { paired, timed, type PairedResult, type Timed } from './engine-pairs.ts';
import { benchDevice, benchMonitor, noLookup } from './engine-records.ts';

const ZONE = 'bench.zone.test';

/**
 * What the Prometheus metrics cost the engine (docs/performance.md, "The engine"): the same
 * `engine.runOnce()` over `count` records, with the command's metrics (`--metrics-address`, a
 * registry scraped once per run) and without, paired round by round. TCP probes and one-zone DNSBL
 * checks are the engine's cheapest checks, where a per-check cost weighs most.
 */
export function benchMetricsCost(
  kind: 'tcp' | 'dnsbl',
  target: { port: number; dns: string },
  count: number,
  concurrency: number,
  rounds: number,
): Promise<PairedResult> {
  const devices = kind === 'tcp' ? Array.from({ length: count }, (_, i) => benchDevice(i + 1, 'tcp', target.port)) : [];
  const monitors = kind === 'dnsbl' ? Array.from({ length: count }, (_, i) => benchMonitor(i + 1)) : [];

  // One registry for every run, as a process has: its counters only grow from run to run.
  const metrics = new PrometheusMetrics();
  const engineMetrics = metrics.engine();
  const run = (withMetrics: boolean) => async (): Promise<Timed> => {
    const store = new QueueStore({ devices, monitors });
    const worker = createMonitoringEngine({
      store,
      concurrency,
      allowPrivateTargets: true,
      lookup: noLookup,
      dnsServers: [target.dns],
      dnsblZones: kind === 'dnsbl' ? [ZONE] : [],
      dnsblDomainZones: [],
      ...(withMetrics ? { metrics: engineMetrics } : {}),
    });
    const timing = await timed(count, async () => {
      await worker.runOnce();
      if (withMetrics) await metrics.scrape();
    });
    if (store.written !== count || store.failedResults > 0) {
      throw new Error(`engine ${kind}: ${store.written} written, ${store.failedResults} failed`);
    }
    return timing;
  };
  // "engine" is the run with metrics, "bare" the one without: the ratio is what keeping them costs.
  return paired(rounds, run(true), run(false));
}
