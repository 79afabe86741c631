import type { PrometheusMetrics } from './prometheus.ts';

export type { PrometheusMetrics };

/** The command's metrics, prom-client loaded on demand (`--metrics-address` only). */
export async function loadMetrics(): Promise<PrometheusMetrics> {
  const { PrometheusMetrics } = await import('./prometheus.ts');
  return new PrometheusMetrics();
}
