import { promises as dns } from 'node:dns';
import { createMonitoringEngine, ENGINE_DEFAULTS } from './compiled.ts';
import { QueueStore } from './engine-queue-store.ts';
import { paired, pool, timed, type PairedResult, type Timed } from './engine-pairs.ts';
import { benchMonitor, noLookup } from './engine-records.ts';

const ZONE = 'bench.zone.test';

/**
 * DNSBL checks per second by one worker: `engine.runOnce()` over `count` due monitors, one zone
 * each and the target's PTR record (two lookups in flight per check), through the real node:dns
 * Resolver the engine builds, against the fake DNS server; beside a bare loop of
 * `Resolver.resolve4` and `Resolver.resolvePtr` on an identically configured Resolver, same
 * names, same concurrency.
 * One zone is the engine's worst case: its work per check is shared by fewer lookups.
 */
export function benchDnsbl(server: string, count: number, concurrency: number, rounds: number): Promise<PairedResult> {
  const monitors = Array.from({ length: count }, (_, i) => benchMonitor(i + 1));
  const names = monitors.map((m) => `${m.target_value.split('.').reverse().join('.')}.${ZONE}`);
  const ptrNames = monitors.map((m) => `${m.target_value.split('.').reverse().join('.')}.in-addr.arpa`);

  const engine = async (): Promise<Timed> => {
    const store = new QueueStore({ monitors });
    const worker = createMonitoringEngine({
      store,
      dnsServers: [server],
      dnsblZones: [ZONE],
      dnsblDomainZones: [`dbl.${ZONE}`],
      concurrency,
      lookup: noLookup,
    });
    const run = await timed(count, async () => void (await worker.runOnce()));
    if (store.written !== count || store.failedResults > 0)
      throw new Error(`engine: ${store.written} written, ${store.failedResults} lookups failed`);
    return run;
  };

  const bare = async (): Promise<Timed> => {
    // As the engine builds its own (engine/dnsbl/resolver.ts): half the DNS timeout, two tries.
    const resolver = new dns.Resolver({ timeout: ENGINE_DEFAULTS.dnsTimeoutMs / 2, tries: 2 });
    resolver.setServers([server]);
    let failed = 0;
    const ask = async (lookup: Promise<string[]>) => {
      try {
        await lookup;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'ENOTFOUND') failed++;
      }
    };
    // The zone and the target's PTR record, together, as the engine's check of an IP asks them.
    const run = await timed(count, () =>
      pool(count, concurrency, async (i) => {
        await Promise.all([ask(resolver.resolve4(names[i]!)), ask(resolver.resolvePtr(ptrNames[i]!))]);
      }),
    );
    if (failed > 0) throw new Error(`bare: ${failed} lookups failed`);
    return run;
  };

  return paired(rounds, engine, bare);
}
