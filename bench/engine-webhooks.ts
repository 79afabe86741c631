import { request } from 'node:http';
import type { ClaimedDelivery } from '../core/index.ts';
import { createGuardedConnector, createWebhookDispatcher, webhookRequest } from './compiled.ts';
import { QueueStore } from './engine-queue-store.ts';
import { paired, pool, timed, type PairedResult, type Timed } from './engine-pairs.ts';
import { benchMonitor, noLookup } from './engine-records.ts';

/** The dispatcher's default: deliveries in flight at once. */
const CONCURRENCY = 20;

/**
 * Webhook deliveries per second: the dispatcher's `runOnce()` over `count` due deliveries spread
 * over 20 endpoints of a loopback receiver (signed, through the guarded connector, one connection
 * each as the dispatcher makes them); beside a bare loop of `http.request` POSTing the same
 * bodies and headers, signed once beforehand, at the same concurrency.
 */
export function benchWebhooks(port: number, count: number, rounds: number): Promise<PairedResult> {
  const deliveries: ClaimedDelivery[] = Array.from({ length: count }, (_, i) => {
    const monitor = benchMonitor(i + 1);
    return {
      lease: { id: i + 1, token: 't', owner: 'bench', expires_at: '2100-01-01T00:00:00.000Z' },
      attempts: 0,
      webhook: {
        id: (i % 20) + 1,
        url: `http://127.0.0.1:${port}/hooks/${i % 20}`,
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      },
      event: {
        id: i + 1,
        type: 'blacklist.listed',
        created_at: '2026-01-01T00:00:00.000Z',
        data: {
          ...monitor,
          last_status: 'listed',
          listed_on: ['zen.spamhaus.org'],
          previous_status: 'clean',
          status: 'listed',
        },
      },
    };
  });

  const engine = async (): Promise<Timed> => {
    const store = new QueueStore({ deliveries });
    const connector = createGuardedConnector({ lookup: noLookup, allowPrivateTargets: true, lookupTimeoutMs: 1_000 });
    const dispatcher = createWebhookDispatcher({ store, connector, concurrency: CONCURRENCY });
    const run = await timed(count, () => dispatcher.runOnce());
    if (store.delivered !== count)
      throw new Error(`dispatcher: ${store.delivered} delivered, ${store.undelivered} not`);
    return run;
  };

  const signed = deliveries.map((d) => ({ path: new URL(d.webhook.url).pathname, ...webhookRequest(d, Date.now()) }));
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const { path, body, headers } = signed[i]!;
      const req = request(
        {
          method: 'POST',
          host: '127.0.0.1',
          port,
          path,
          agent: false,
          headers: {
            ...headers,
            host: `127.0.0.1:${port}`,
            'content-length': String(Buffer.byteLength(body)),
            connection: 'close',
          },
        },
        (res) => {
          res.resume();
          if (res.statusCode !== 204) reject(new Error(`status ${res.statusCode}`));
          else resolve();
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  const bare = () => timed(count, () => pool(count, CONCURRENCY, post));
  return paired(rounds, engine, bare);
}
