/**
 * docs/engine.md, "Reports", through a running engine with a manual clock and a local target: a
 * device down for 10 minutes in a day answers availability 99.3056 with one incident of 600 s and
 * its cause; a maintenance window over the outage, or a pause, is excluded from availability; the
 * response-time series counts the day's checks; several workers racing on one database open and
 * close one incident.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, it } from 'node:test';
import type { AvailabilityReport, Device, Incident, ResponseTimePoint } from '../../core/index.ts';
import { suiteOrSkip } from '../support/suite-or-skip.ts';
import { createWebDevice, eachStore, openWorld, STORES, type World } from './harness.ts';
import { startTargetServer, type TargetServer } from './target-server.ts';
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

eachStore('reports through the engine', (opened) => {
  let world: World | undefined;
  let target: TargetServer | undefined;
  afterEach(async () => {
    await world?.close();
    await target?.close();
  });

  async function dayWithOutage(options: { around?: (w: World, device: Device) => Promise<void> } = {}) {
    const w = (world = await openWorld(opened().store, at('00:00:00')));
    target = await startTargetServer();
    const engine = w.engine({ failuresBeforeDown: 1 });
    const device = await createWebDevice(w, 'reported.probe-fixture.net', target.port, 60);
    await engine.runOnce();
    await options.around?.(w, device);
    // Checks every minute around the outage, which runs from 10:00 to 10:10 exactly.
    await checkEveryMinute(w, () => engine.runOnce(), '09:50:00', '10:00:00');
    target.health = 'error';
    await checkEveryMinute(w, () => engine.runOnce(), '10:00:00', '10:10:00');
    target.health = 'ok';
    await checkEveryMinute(w, () => engine.runOnce(), '10:10:00', '10:20:00');
    w.clock.set(Date.parse('2026-06-02T00:00:00Z'));
    await engine.runOnce();
    return { w, device, engine };
  }

  it('10 minutes down in a day: 99.3056 %, one incident of 600 s with its cause', async () => {
    const { w, device } = await dayWithOutage();
    const report = await w.call<AvailabilityReport>(`/devices/availability?id=${device.id}&${RANGE}`);
    assert.equal(report.availability, 99.3056);
    assert.deepEqual(
      [report.uptime_s, report.downtime_s, report.maintenance_s, report.paused_s, report.unknown_s],
      [86_400 - 600, 600, 0, 0, 0],
    );
    assert.deepEqual([report.incidents, report.longest_incident_s, report.mean_incident_s], [1, 600, 600]);

    const incidents = await w.call<Incident[]>(`/incidents?device_id=${device.id}&${RANGE}`);
    assert.equal(incidents.length, 1);
    const [incident] = incidents;
    assert.deepEqual(
      [incident!.device_id, incident!.started_at, incident!.resolved_at, incident!.duration_s],
      [device.id, `${DAY}T10:00:00.000Z`, `${DAY}T10:10:00.000Z`, 600],
    );
    assert.equal(incident!.cause?.probe, 'public_http');
    assert.ok(incident!.cause?.error, 'the cause names the error');

    // The day's series: 22 checks of one probe (the first, 10 before, 10 during, 10 after,
    // the last), of which 10 failed.
    const series = await w.call<ResponseTimePoint[]>(`/devices/response-times?id=${device.id}&${RANGE}&bucket=day`);
    assert.deepEqual(
      series.map((p) => [p.at, p.probe, p.checks, p.failures]),
      [[`${DAY}T00:00:00.000Z`, 'public_http', 31, 10]],
    );
  });

  it('a maintenance window over the outage is excluded from availability', async () => {
    const { w, device } = await dayWithOutage({
      around: async (w, device) => {
        await w.call(
          '/maintenance-windows/create',
          {
            method: 'POST',
            body: { name: 'Planned', starts_at: `${DAY}T09:55:00Z`, ends_at: `${DAY}T10:15:00Z`, device_ids: [device.id] },
          },
          201,
        );
      },
    });
    const report = await w.call<AvailabilityReport>(`/devices/availability?id=${device.id}&${RANGE}`);
    assert.deepEqual(
      [report.availability, report.downtime_s, report.maintenance_s, report.incidents],
      [100, 0, 1200, 0],
    );
  });

  it('paused time is excluded from availability', async () => {
    const w = (world = await openWorld(opened().store, at('00:00:00')));
    target = await startTargetServer();
    const engine = w.engine({ failuresBeforeDown: 1 });
    const device = await createWebDevice(w, 'paused-report.probe-fixture.net', target.port, 60);
    await engine.runOnce();
    w.clock.set(at('10:00:00'));
    await w.call(`/devices/update?id=${device.id}`, { method: 'PATCH', body: { is_enabled: false } });
    w.clock.set(at('12:00:00'));
    await w.call(`/devices/update?id=${device.id}`, { method: 'PATCH', body: { is_enabled: true } });
    await engine.runOnce();
    w.clock.set(Date.parse('2026-06-02T00:00:00Z'));
    const report = await w.call<AvailabilityReport>(`/devices/availability?id=${device.id}&${RANGE}`);
    assert.deepEqual(
      [report.availability, report.paused_s, report.downtime_s, report.unknown_s],
      [100, 7200, 0, 0],
    );
  });

  it('time before the device existed is unknown, not uptime', async () => {
    const w = (world = await openWorld(opened().store, at('18:00:00')));
    target = await startTargetServer();
    const device = await createWebDevice(w, 'late.probe-fixture.net', target.port, 60);
    await w.engine().runOnce();
    w.clock.set(Date.parse('2026-06-02T00:00:00Z'));
    const report = await w.call<AvailabilityReport>(`/devices/availability?id=${device.id}&${RANGE}`);
    assert.deepEqual([report.unknown_s, report.uptime_s, report.availability], [18 * 3600, 6 * 3600, 100]);
  });
});

for (const factory of STORES.filter((f) => f.name === 'postgres')) {
  suiteOrSkip(`reports with three racing workers (${factory.name})`, factory.skip, { concurrency: 1 }, () => {
    let shared: WorkerStores | undefined;
    let world: World | undefined;
    let target: TargetServer | undefined;
    before(async () => {
      shared = await openWorkerStores(factory.name, 3);
    });
    afterEach(async () => {
      await world?.close();
      await target?.close();
    });
    after(async () => {
      await shared?.cleanup();
    });

    it('one incident per outage, opened and closed once, whichever worker writes', async () => {
      const { stores } = shared!;
      const w = (world = await openWorld(stores[0]!, at('00:00:00')));
      target = await startTargetServer();
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
