import { request } from 'node:http';
import { connect } from 'node:net';
import { createMonitoringEngine } from './compiled.ts';
import { QueueStore } from './engine-queue-store.ts';
import { paired, pool, timed, type PairedResult, type Timed } from './engine-pairs.ts';
import { benchDevice, noLookup } from './engine-records.ts';

/**
 * Device probes per second by one worker: `engine.runOnce()` over `count` devices on a loopback
 * target (private targets allowed for it), the real probes through the guarded connector; beside
 * a bare loop at the same concurrency doing the network part alone: `net.connect` and close for
 * `tcp`, a GET `/` by `http.request` (no agent, `connection: close`, as the probe sends it) read
 * to its head for `http`.
 */
export function benchProbes(
  kind: 'tcp' | 'http',
  port: number,
  count: number,
  concurrency: number,
  rounds: number,
): Promise<PairedResult> {
  const devices = Array.from({ length: count }, (_, i) => benchDevice(i + 1, kind, port));

  const engine = async (): Promise<Timed> => {
    const store = new QueueStore({ devices });
    const worker = createMonitoringEngine({
      store,
      concurrency,
      allowPrivateTargets: true,
      lookup: noLookup,
      dnsblZones: [],
      dnsblDomainZones: [],
    });
    const run = await timed(count, async () => void (await worker.runOnce()));
    if (store.written !== count || store.failedResults > 0)
      throw new Error(`engine ${kind}: ${store.written} written, ${store.failedResults} probes failed`);
    return run;
  };

  const bareTcp = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });

  const bareHttp = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/', agent: false, headers: { connection: 'close', accept: '*/*' } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          else resolve();
          res.destroy();
        },
      );
      req.once('error', reject);
      req.end();
    });

  const bare = () => timed(count, () => pool(count, concurrency, kind === 'tcp' ? bareTcp : bareHttp));
  return paired(rounds, engine, bare);
}
