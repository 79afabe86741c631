/**
 * docs/engine.md, "Maintenance windows", through a running engine against a local target: a window
 * that starts while the target fails puts the device in maintenance (announced once, never down),
 * checks go on and are marked, and a target still failing after the window is announced down
 * once; a weekly window in a zone that changes to daylight saving within the simulated week
 * starts at the right UTC instants.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BlacklistMonitor, Device, DeviceProbeResult, DnsblResult, MaintenanceWindow } from '../../core/index.ts';
import { closedAfterEach, createWebDevice, eachStore, verifySigned, type World } from './harness.ts';

const INTERVAL_S = 60;
const RETRY_S = 30;

eachStore('maintenance windows in the engine', (opened) => {
  const open = closedAfterEach();

  const webDevice = (w: World, name: string, port: number): Promise<Device> =>
    createWebDevice(w, name, port, INTERVAL_S);

  it('a window that starts while the target is down: no device.down, started and ended announced, down once after', async () => {
    const start = Date.parse('2026-05-04T10:00:00.000Z');
    const w = await open.world(opened().store, start);
    const target = await open.target();
    const { receiver, webhook } = await w.subscribe();
    const engine = w.engine({ retryDelayS: RETRY_S, failuresBeforeDown: 2 });
    const device = await webDevice(w, 'maintained.probe-fixture.net', target.port);
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'up');

    // The window: 10:05 to 10:20. The target fails from 10:04, so one failed check before it.
    const window = await w.call<MaintenanceWindow>(
      '/maintenance-windows/create',
      {
        method: 'POST',
        body: {
          name: 'Planned',
          starts_at: '2026-05-04T10:05:00Z',
          ends_at: '2026-05-04T10:20:00Z',
          device_ids: [device.id],
        },
      },
      201,
    );
    target.health = 'error';
    w.clock.set(Date.parse('2026-05-04T10:04:00Z'));
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'validating');

    // The window begins before the retry: the device is in maintenance from its start.
    w.clock.set(Date.parse('2026-05-04T10:05:00Z'));
    await engine.runOnce();
    const inside = await w.device(device.id);
    assert.deepEqual([inside.status, inside.status_since], ['maintenance', '2026-05-04T10:05:00.000Z']);
    assert.equal((await w.call<MaintenanceWindow>(`/maintenance-windows/get?id=${window.id}`)).active_now, true);
    // Checks go on, every interval, kept and marked; the status and the silence hold.
    const before = target.requests;
    for (let minute = 6; minute < 20; minute++) {
      w.clock.set(Date.parse(`2026-05-04T10:${String(minute).padStart(2, '0')}:30Z`));
      await engine.runOnce();
      assert.equal((await w.device(device.id)).status, 'maintenance');
    }
    assert.ok(target.requests > before + 10, `checked during the window (${target.requests - before} checks)`);
    const results = await w.call<DeviceProbeResult[]>(`/devices/results?id=${device.id}&limit=3`);
    for (const result of results) assert.deepEqual([result.ok, result.maintenance], [false, true]);

    // The window ends: pending and checked at once, then validating, then down, announced once.
    w.clock.set(Date.parse('2026-05-04T10:20:00Z'));
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'validating', 'pending at the end, and failing at once');
    w.clock.advance(RETRY_S * 1000);
    await engine.runOnce();
    assert.equal((await w.device(device.id)).status, 'down');
    for (let i = 0; i < 3; i++) {
      w.clock.advance(INTERVAL_S * 1000);
      await engine.runOnce();
    }
    const events = receiver.received.map((request) => verifySigned(webhook.secret, request));
    assert.deepEqual(
      events.map((e) => [e.type, e.data.previous_status, e.data.status]),
      [
        ['device.maintenance_started', 'validating', 'maintenance'],
        ['device.maintenance_ended', 'maintenance', 'pending'],
        ['device.down', 'validating', 'down'],
      ],
    );
    const [last] = await w.call<DeviceProbeResult[]>(`/devices/results?id=${device.id}&limit=1`);
    assert.equal(last?.maintenance, undefined, 'a check after the window is not marked');
  });

  it('a blacklist monitor in a window: checked and marked, nothing announced; a listing that holds after it is announced once', async () => {
    const zone = 'zone.maintenance-dnsbl.net';
    const w = await open.world(opened().store, Date.parse('2026-05-04T10:00:00.000Z'));
    const dns = await open.dns();
    const { receiver, webhook } = await w.subscribe();
    const engine = w.engine({ dnsServers: [dns.address], dnsblZones: [zone], dnsblDomainZones: [] });
    const listedFirst = await w.call<BlacklistMonitor>(
      '/blacklist-monitors/create',
      {
        method: 'POST',
        body: { target_type: 'ip', target_value: '192.0.2.20', check_interval_s: 300 },
      },
      201,
    );
    const listedDuring = await w.call<BlacklistMonitor>(
      '/blacklist-monitors/create',
      {
        method: 'POST',
        body: { target_type: 'ip', target_value: '192.0.2.21', check_interval_s: 300 },
      },
      201,
    );
    // One is listed before the window (announced then), the other only during it.
    dns.set(`20.2.0.192.${zone}`, { a: ['127.0.0.2'] });
    await engine.runOnce();
    await w.call(
      '/maintenance-windows/create',
      {
        method: 'POST',
        body: {
          name: 'DNS work',
          starts_at: '2026-05-04T10:01:00Z',
          ends_at: '2026-05-04T10:30:00Z',
          all_blacklist_monitors: true,
        },
      },
      201,
    );
    dns.set(`21.2.0.192.${zone}`, { a: ['127.0.0.2'] });
    for (const minute of ['05', '10', '15', '20', '25']) {
      w.clock.set(Date.parse(`2026-05-04T10:${minute}:00Z`));
      await engine.runOnce();
    }
    const during = await w.monitor(listedDuring.id);
    assert.deepEqual([during.last_status, during.listed_on], ['listed', [zone]], 'checked in the window');
    const [marked] = await w.call<DnsblResult[]>(`/blacklist-monitors/results?id=${listedDuring.id}&limit=1`);
    assert.equal(marked?.maintenance, true);
    const announced = () =>
      receiver.received
        .map((request) => verifySigned(webhook.secret, request))
        .filter((e) => e.type.startsWith('blacklist.'))
        .map((e) => [e.type, e.data.id]);
    assert.deepEqual(announced(), [['blacklist.listed', listedFirst.id]], 'nothing announced during the window');

    // After the window both are checked at once: the listing found during it is announced, once.
    w.clock.set(Date.parse('2026-05-04T10:30:00Z'));
    await engine.runOnce();
    w.clock.advance(300_000);
    await engine.runOnce();
    assert.deepEqual(announced(), [
      ['blacklist.listed', listedFirst.id],
      ['blacklist.listed', listedDuring.id],
    ]);
    const [after] = await w.call<DnsblResult[]>(`/blacklist-monitors/results?id=${listedDuring.id}&limit=1`);
    assert.equal(after?.maintenance, undefined);
  });

  it('maintenance started and ended once per occurrence, through a pause and an edit; the next occurrence again', async () => {
    const w = await open.world(opened().store, Date.parse('2026-05-04T10:00:00.000Z'));
    const target = await open.target();
    const moved = await open.target();
    const { receiver, webhook } = await w.subscribe();
    const engine = w.engine();
    const device = await webDevice(w, 'edited.probe-fixture.net', target.port);
    // Mondays 10:05 to 10:20 UTC.
    await w.call(
      '/maintenance-windows/create',
      {
        method: 'POST',
        body: {
          name: 'Weekly',
          repeat: { days: ['mon'], start: '10:05', duration_s: 900, time_zone: 'Etc/UTC' },
          device_ids: [device.id],
        },
      },
      201,
    );
    const at = async (instant: string) => {
      w.clock.set(Date.parse(instant));
      await engine.runOnce();
      return w.device(device.id);
    };
    const update = (body: Record<string, unknown>) =>
      w.call<Device>(`/devices/update?id=${device.id}`, { method: 'PATCH', body });
    assert.equal((await at('2026-05-04T10:00:00Z')).status, 'up');
    assert.equal((await at('2026-05-04T10:05:00Z')).status, 'maintenance');

    // Paused and resumed inside the window: back in maintenance for the same occurrence.
    w.clock.set(Date.parse('2026-05-04T10:07:00Z'));
    assert.equal((await update({ is_enabled: false })).status, 'paused');
    assert.equal((await at('2026-05-04T10:08:00Z')).status, 'paused');
    assert.equal((await update({ is_enabled: true })).status, 'pending');
    const resumed = await at('2026-05-04T10:09:00Z');
    assert.deepEqual([resumed.status, resumed.status_since], ['maintenance', '2026-05-04T10:05:00.000Z']);
    // The port changed inside the window: pending, then in maintenance again.
    assert.equal((await update({ port: moved.port })).status, 'pending');
    const edited = await at('2026-05-04T10:10:00Z');
    assert.deepEqual([edited.status, edited.status_since], ['maintenance', '2026-05-04T10:05:00.000Z']);
    assert.equal((await at('2026-05-04T10:20:00Z')).status, 'up', 'pending at the end, checked at once');
    assert.equal((await at('2026-05-04T10:21:00Z')).status, 'up');

    // The next Monday's occurrence is announced again.
    assert.equal((await at('2026-05-11T10:05:00Z')).status, 'maintenance');
    assert.equal((await at('2026-05-11T10:20:00Z')).status, 'up');
    assert.equal((await at('2026-05-11T10:21:00Z')).status, 'up');

    const events = receiver.received
      .map((request) => verifySigned(webhook.secret, request))
      .filter((e) => e.type.startsWith('device.maintenance_'));
    assert.deepEqual(
      events.map((e) => [e.type, e.data.id, e.data.status_since]),
      [
        ['device.maintenance_started', device.id, '2026-05-04T10:05:00.000Z'],
        ['device.maintenance_ended', device.id, '2026-05-04T10:20:00.000Z'],
        ['device.maintenance_started', device.id, '2026-05-11T10:05:00.000Z'],
        ['device.maintenance_ended', device.id, '2026-05-11T10:20:00.000Z'],
      ],
    );
  });

  it('a weekly window across a daylight-saving change starts at the right UTC instants', async () => {
    // New York: EST (UTC-5) until Sunday 2026-03-08 02:00 local, EDT (UTC-4) after. 09:00 local
    // is 14:00 UTC on Saturday and 13:00 UTC on Sunday.
    const w = await open.world(opened().store, Date.parse('2026-03-07T13:00:00Z'));
    const target = await open.target();
    const engine = w.engine();
    const device = await webDevice(w, 'weekly.probe-fixture.net', target.port);
    await w.call(
      '/maintenance-windows/create',
      {
        method: 'POST',
        body: {
          name: 'Weekend',
          repeat: { days: ['sat', 'sun'], start: '09:00', duration_s: 1800, time_zone: 'America/New_York' },
          all_devices: true,
        },
      },
      201,
    );
    const statusAt = async (at: string) => {
      w.clock.set(Date.parse(at));
      await engine.runOnce();
      return (await w.device(device.id)).status;
    };
    assert.equal(await statusAt('2026-03-07T13:59:59Z'), 'up');
    assert.equal(await statusAt('2026-03-07T14:00:00Z'), 'maintenance');
    assert.equal((await w.device(device.id)).status_since, '2026-03-07T14:00:00.000Z');
    assert.equal(await statusAt('2026-03-07T14:29:59Z'), 'maintenance');
    assert.equal(await statusAt('2026-03-07T14:30:00Z'), 'up', 'pending at the end, checked at once');
    assert.equal(await statusAt('2026-03-08T12:59:59Z'), 'up');
    assert.equal(await statusAt('2026-03-08T13:00:00Z'), 'maintenance', 'Sunday 09:00 EDT is 13:00 UTC');
    assert.equal((await w.device(device.id)).status_since, '2026-03-08T13:00:00.000Z');
    assert.equal(await statusAt('2026-03-08T13:30:00Z'), 'up');
    assert.equal(await statusAt('2026-03-08T14:00:00Z'), 'up', 'not at the winter instant');
  });
});
