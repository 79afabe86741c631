/**
 * docs/engine.md, "Reports", with several workers racing on one PostgreSQL database through
 * running engines, a manual clock and a local target: each outage opens and closes one incident,
 * whichever worker writes, and availability comes out exact (test/e2e/reports.test.ts has the
 * single-engine cases on every store).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { AvailabilityReport, Device, Incident } from '../../core/index.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { closedAfterEach, createWebDevice, STORES, type World } from './harness.ts';
import { openWorkerStores, type WorkerStores } from './worker-stores.ts';

const DAY = '2026-06-01';
const at = (time: string) => Date.parse(`${DAY}T${time}Z`);
const RANGE = `from=${DAY}T00:00:00Z&to=2026-06-02T00:00:00Z`;

/** Checks every minute from `fromTime` up to (not including) `toTime`, the clock set to each. */
async function checkEveryMinute(w: World, run: () => Promise<unknown>, fromTime: string, toTime: string) {
  for (let t = at(fromTime); t < at(toTime); t += 60_000) {
    w.clock.set(t);
    await run();
  }
}

for (const factory of STORES.filter((f) => f.name === 'postgres')) {
  suiteOrSkip(`reports with three racing workers (${factory.name})`, factory.skip, { concurrency: 1 }, () => {
    let shared: WorkerStores | undefined;
    before(async () => {
      shared = await openWorkerStores(factory.name, 3);
    });
    const open = closedAfterEach();
    after(async () => {
      await shared?.cleanup();
    });

    it('one incident per outage, opened and closed once, whichever worker writes', async () => {
      const { stores } = shared!;
      const w = await open.world(stores[0]!, at('00:00:00'));
      const target = await open.target();
      const engines = stores.map((store, i) =>
        w.engine({ store, workerId: `worker-${i + 1}`, failuresBeforeDown: 1, batchSize: 1 }),
      );
      const devices: Device[] = [];
      for (let i = 0; i < 4; i++)
        devices.push(await createWebDevice(w, `raced-${i}.probe-fixture.net`, target.port, 60));
      const all = () => Promise.all(engines.map((engine) => engine.runOnce()));
      await all();
      target.health = 'error';
      await checkEveryMinute(w, all, '10:00:00', '10:10:00');
      target.health = 'ok';
      await checkEveryMinute(w, all, '10:10:00', '10:12:00');
      w.clock.set(Date.parse('2026-06-02T00:00:00Z'));
      for (const device of devices) {
        const incidents = await w.call<Incident[]>(`/incidents?device_id=${device.id}&${RANGE}`);
        assert.deepEqual(
          incidents.map((i) => [i.started_at, i.resolved_at, i.duration_s]),
          [[`${DAY}T10:00:00.000Z`, `${DAY}T10:10:00.000Z`, 600]],
          `device ${device.id}: one incident`,
        );
        const report = await w.call<AvailabilityReport>(`/devices/availability?id=${device.id}&${RANGE}`);
        assert.deepEqual([report.availability, report.incidents], [99.3056, 1]);
      }
    });
  });
}
