/**
 * docs/contract.md §6.12 through a running engine against a local target, on every store, with a
 * manual clock: a device down 10 minutes in a day answers 99.3056 % and one incident of 600 s
 * with its cause; an outage inside a maintenance window is maintenance, not downtime; paused time
 * counts neither as up nor as down.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { AvailabilityReport, Device, Incident } from '../../core/index.ts';
import { closedAfterEach, createWebDevice, eachStore, type World } from './harness.ts';
import type { TargetServer } from './target-server.ts';

const DAY_START = '2026-05-04T00:00:00.000Z';
const DAY_END = '2026-05-05T00:00:00.000Z';
const at = (time: string) => Date.parse(`2026-05-04T${time}Z`);
const enc = encodeURIComponent;

eachStore('reports from a running engine', (opened) => {
  const open = closedAfterEach();

  async function start(
    name: string,
  ): Promise<{ w: World; target: TargetServer; device: Device; run: (time: string) => Promise<void> }> {
    const w = await open.world(opened().store, DAY_START);
    const target = await open.target();
    const engine = w.engine({ retryDelayS: 30, failuresBeforeDown: 2 });
    const device = await createWebDevice(w, name, target.port, 60);
    const run = async (time: string) => {
      w.clock.set(at(time));
      await engine.runOnce();
    };
    await run('00:00:00');
    assert.equal((await w.device(device.id)).status, 'up');
    return { w, target, device, run };
  }

  const availability = (w: World, id: number) =>
    w.call<AvailabilityReport>(`/devices/availability?id=${id}&from=${enc(DAY_START)}&to=${enc(DAY_END)}`);

  it('down 10 minutes in a day: 99.3056 %, one incident of 600 s with its cause', async () => {
    const { w, target, device, run } = await start('outage.probe-fixture.net');
    target.health = 'error';
    await run('10:00:00'); // the first failure: validating, which counts as up
    await run('10:00:30'); // confirmed at the retry: down from here
    assert.equal((await w.device(device.id)).status, 'down');
    target.health = 'ok';
    await run('10:10:30'); // up again, 600 s later
    assert.equal((await w.device(device.id)).status, 'up');
    w.clock.set(Date.parse(DAY_END) + 3_600_000);

    const report = await availability(w, device.id);
    assert.equal(report.availability, 99.3056);
    assert.equal(report.downtime_s, 600);
    assert.equal(report.uptime_s, 86_400 - 600);
    assert.equal(report.unknown_s, 0);
    assert.deepEqual([report.incidents, report.longest_incident_s], [1, 600]);

    const incidents = await w.call<Incident[]>(`/incidents?device_id=${device.id}`);
    assert.equal(incidents.length, 1);
    assert.deepEqual(
      { ...incidents[0]!, id: 0 },
      {
        id: 0,
        device_id: device.id,
        heartbeat_id: null,
        started_at: '2026-05-04T10:00:30.000Z',
        resolved_at: '2026-05-04T10:10:30.000Z',
        duration_s: 600,
        cause: { probe: 'public_http', error: 'unexpected_status' },
        locations: null,
        acknowledged_at: null,
        acknowledged_by: null,
      },
    );
  });

  it('an outage inside a maintenance window is maintenance time, and no incident', async () => {
    const { w, target, device, run } = await start('maintained.probe-fixture.net');
    await w.call(
      '/maintenance-windows/create',
      {
        method: 'POST',
        body: {
          name: 'Planned',
          starts_at: '2026-05-04T10:00:00Z',
          ends_at: '2026-05-04T10:20:00Z',
          device_ids: [device.id],
        },
      },
      201,
    );
    await run('10:00:00');
    assert.equal((await w.device(device.id)).status, 'maintenance');
    target.health = 'error';
    for (const time of ['10:05:00', '10:05:30', '10:06:30', '10:10:00']) await run(time);
    assert.equal((await w.device(device.id)).status, 'maintenance');
    target.health = 'ok';
    await run('10:20:00'); // the window ends: pending, checked at once
    await run('10:21:00');
    assert.equal((await w.device(device.id)).status, 'up');
    w.clock.set(Date.parse(DAY_END));

    const report = await availability(w, device.id);
    assert.equal(report.maintenance_s, 1200);
    assert.equal(report.downtime_s, 0);
    assert.equal(report.uptime_s, 86_400 - 1200);
    assert.equal(report.availability, 100);
    assert.equal(report.incidents, 0);
    assert.deepEqual(await w.call<Incident[]>(`/incidents?device_id=${device.id}`), []);
  });

  it('a pause counts neither as up nor as down', async () => {
    const { w, device, run } = await start('paused.probe-fixture.net');
    w.clock.set(at('12:00:00'));
    await w.call(`/devices/update?id=${device.id}`, { method: 'PATCH', body: { is_enabled: false } });
    w.clock.set(at('13:00:00'));
    await w.call(`/devices/update?id=${device.id}`, { method: 'PATCH', body: { is_enabled: true } });
    await run('13:00:00');
    assert.equal((await w.device(device.id)).status, 'up');
    w.clock.set(Date.parse(DAY_END));

    const report = await availability(w, device.id);
    assert.equal(report.paused_s, 3600);
    assert.equal(report.uptime_s, 86_400 - 3600);
    assert.equal(report.availability, 100);
  });
});
