/**
 * `npm run bench -- --only engine`: the monitoring engine's figures (docs/performance.md, "The engine").
 * The in-process parts run the engine and a bare loop doing only the network part side by side,
 * round after round, against targets in a second process (bench/engine-targets.ts): the ratio
 * within each round is what counts on a shared machine. The PostgreSQL parts use a database of
 * their own, created and dropped here, and are skipped with the reason when there is no server.
 */
import { migrateToLatest, openKyselyStore } from './compiled.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import type { BenchRun } from './benchmark.ts';
import { benchCycle, seedCycle } from './engine-cycle.ts';
import { benchDnsbl } from './engine-dnsbl.ts';
import { benchLag } from './engine-lag.ts';
import { benchMetricsCost } from './engine-metrics.ts';
import type { PairedResult } from './engine-pairs.ts';
import { benchProbes } from './engine-probes.ts';
import { startEngineTargets } from './engine-targets-process.ts';
import { benchWebhooks } from './engine-webhooks.ts';

/** The engine's concurrency default: the engine and the bare loops run at it. */
const CONCURRENCY = 100;

export async function benchEngine({ smoke, rounds, report }: BenchRun): Promise<void> {
  // The smoke run's sizes only have to make every part run (each comparison runs four times: a
  // warm-up and a round of each side).
  const size = smoke
    ? { dnsbl: 60, probes: 60, webhooks: 40, cycle: 400, lagDevices: 500, lagVirtualS: 10, lagFactor: 10 }
    : {
        dnsbl: 10_000,
        probes: 10_000,
        webhooks: 5_000,
        cycle: 100_000,
        lagDevices: 10_000,
        lagVirtualS: 300,
        lagFactor: 5,
      };
  const pairs = smoke ? 1 : Math.min(rounds, 5);
  const pairRow = (what: string, unit: string, r: PairedResult, target: string) => {
    report(what, 'bare loop', `${Math.round(r.bare)} ${unit}`, '1.00', `cpu ${r.bareCpu.toFixed(0)} us/op`);
    report(
      what,
      'engine',
      `${Math.round(r.engine)} ${unit}`,
      r.ratio.toFixed(2),
      `cpu ${r.engineCpu.toFixed(0)} us/op (ratio ${r.cpuRatio.toFixed(2)})`,
      target,
    );
  };
  console.log(`engine: ${pairs} paired round(s) per comparison, median; concurrency ${CONCURRENCY}`);

  const targets = await startEngineTargets();
  try {
    pairRow(
      `DNSBL checks (${size.dnsbl}, one zone and the PTR)`,
      'checks/s',
      await benchDnsbl(targets.dns, size.dnsbl, CONCURRENCY, pairs),
      'target >= 0.70',
    );
    pairRow(
      `TCP probes (${size.probes} devices)`,
      'probes/s',
      await benchProbes('tcp', targets.tcp, size.probes, CONCURRENCY, pairs),
      'target >= 0.60',
    );
    pairRow(
      `HTTP probes (${size.probes} devices)`,
      'probes/s',
      await benchProbes('http', targets.http, size.probes, CONCURRENCY, pairs),
      'target >= 0.60',
    );
    pairRow(
      `webhook deliveries (${size.webhooks}, c=20)`,
      'deliveries/s',
      await benchWebhooks(targets.receiver, size.webhooks, pairs),
      'reported',
    );
    for (const kind of ['tcp', 'dnsbl'] as const) {
      const r = await benchMetricsCost(kind, { port: targets.tcp, dns: targets.dns }, size.probes, CONCURRENCY, pairs);
      const what = `${kind === 'tcp' ? 'TCP probes' : 'DNSBL checks, one zone'} (${size.probes}), metrics on against off`;
      report(what, 'metrics off', `${Math.round(r.bare)} checks/s`, '1.00', `cpu ${r.bareCpu.toFixed(0)} us/op`);
      const cpu = `cpu ${r.engineCpu.toFixed(0)} us/op (ratio ${r.cpuRatio.toFixed(2)})`;
      report(what, 'metrics on', `${Math.round(r.engine)} checks/s`, r.ratio.toFixed(2), cpu, 'reported');
    }

    const database = await createTestDatabase();
    if (database.skip !== undefined) {
      report('PostgreSQL parts (claim-and-record cycle, scheduling lag)', 'skipped', database.skip);
      return;
    }
    const opened = await openKyselyStore(database.url);
    try {
      await migrateToLatest(opened.db);
      // 5x: five minutes in one. Real time spent counts 5-fold (see benchLag), so the more the
      // compression, the more the machine's own hiccups weigh; 10x (the smoke run's) doubled p99.
      const lag = await benchLag(opened, targets.tcp, size.lagDevices, size.lagVirtualS, size.lagFactor);
      report(
        `scheduling lag (load of ${size.lagDevices} devices at 60 s: ${lag.devices} devices, ${size.lagVirtualS / 60} min at ${size.lagFactor}x)`,
        `${lag.checks} checks of ${lag.expected}`,
        `p50 ${lag.p50.toFixed(2)} s`,
        `p99 ${lag.p99.toFixed(2)} s`,
        `max ${lag.max.toFixed(2)} s`,
        'goal p99 < 2 s',
      );

      await seedCycle(opened, size.cycle);
      // The smoke run proves the cycle runs and checks nothing twice; one zone count is enough for
      // that, and two workers contend for the records as four do, at two processes less apiece
      // (one worker alone runs the same code, less the contention).
      for (const zones of smoke ? [1] : [1, 6]) {
        for (const workers of smoke ? [2] : [1, 4]) {
          // The hand-written baseline (bench/engine-cycle-raw-worker.ts) first, then the engine, on
          // the same table made due again: the ratio says what the engine costs around the SQL.
          const hand = await benchCycle(opened, database.url, size.cycle, workers, zones, 'hand-written');
          const r = await benchCycle(opened, database.url, size.cycle, workers, zones);
          const what = `claim-and-record cycle (PostgreSQL, ${r.records} records, ${zones} zone${zones > 1 ? 's' : ''})`;
          const processes = `${workers} worker process${workers > 1 ? 'es' : ''}`;
          report(
            what,
            `${processes}, hand-written pg`,
            `${Math.round(hand.perSecond)} records/s`,
            '1.00',
            `workers ${hand.workerCpu.toFixed(0)} us/record`,
            `PostgreSQL ${hand.postgresCpu.toFixed(0)} us/record`,
            `${hand.cores.toFixed(2)} cores busy`,
          );
          report(
            what,
            processes,
            `${Math.round(r.perSecond)} records/s`,
            (r.perSecond / hand.perSecond).toFixed(2),
            `workers ${r.workerCpu.toFixed(0)} us/record`,
            `PostgreSQL ${r.postgresCpu.toFixed(0)} us/record`,
            `${r.cores.toFixed(2)} cores busy`,
            `checked twice: ${r.checkedTwice}`,
            workers === 4 ? 'target >= 10000/s' : '',
          );
        }
      }
    } finally {
      await opened.store.close();
      await database.drop();
    }
  } finally {
    await targets.stop();
  }
}
