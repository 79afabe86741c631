import { startSideListener, type SideListener } from '../server/side-listener.ts';
import type { PrometheusMetrics } from './prometheus.ts';

/**
 * `--metrics-address`: `GET /metrics` in Prometheus's text format on a listener of its own, never
 * the API's port, so that it can be kept to the monitoring network; anything else is 404.
 */
export function startMetricsListener(host: string, port: number, metrics: PrometheusMetrics): Promise<SideListener> {
  return startSideListener(host, port, (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if ((req.url ?? '').split('?', 1)[0] !== '/metrics') return false;
    metrics.scrape().then(
      ({ body, contentType }) => {
        const length = Buffer.byteLength(body);
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': length });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('metrics failed\n');
      },
    );
    return true;
  });
}
