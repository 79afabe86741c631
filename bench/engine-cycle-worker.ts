// One worker of the claim-and-record benchmark (bench/engine-cycle.ts), a process of its own as a
// real worker is: the engine on PostgreSQL with a resolver that answers every DNSBL query at once
// (NXDOMAIN-like: no addresses), so what it measures is the store's cycle, not DNS. Prints
// `ready` once connected, runs `runOnce()` when told `go` on stdin, prints its summary as JSON,
// and closes its pool when stdin ends (not before: its backends' CPU is read after the run).
import { sql } from 'kysely';
import { createMonitoringEngine, openKyselyStore } from './compiled.ts';
import { serveCycleWorker } from './engine-cycle-protocol.ts';

const [url, workerId, zoneCount] = process.argv.slice(2);
const opened = await openKyselyStore(url!);
const zones = Array.from({ length: Number(zoneCount) }, (_, i) => `z${i}.cycle.bench.test`);
const engine = createMonitoringEngine({
  store: opened.store,
  workerId,
  dnsblZones: zones,
  dnsblDomainZones: zones,
  resolver: { resolve4: () => Promise.resolve([]) },
  lookup: async (name) => {
    throw new Error(`the cycle bench resolves no names, yet ${name} was asked`);
  },
});
await serveCycleWorker({
  // The pool's connections open before the clock starts, as a worker's are after its first minute.
  warm: async () => void (await Promise.all(Array.from({ length: 10 }, () => sql`select 1`.execute(opened.db)))),
  run: () => engine.runOnce(),
  close: () => opened.store.close(),
});
