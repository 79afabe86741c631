/**
 * docs/engine.md, "Locations", through the API and running engines against a local target: each
 * result names the location whose worker made it (`check_location`, null for a device checked
 * from any one location), and a device in a maintenance window checked from its locations keeps
 * its results marked `maintenance` with its status and its silence held, as a device of one
 * location does (docs/engine.md, "Maintenance windows").
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { DeviceProbeResult } from '../../core/index.ts';
import { closedAfterEach, createWebDevice, eachStore, verifySigned, type World } from './harness.ts';

const INTERVAL_S = 60;
const RETRY_S = 30;

eachStore('results and maintenance of a device checked from several locations', (opened, name) => {
  const open = closedAfterEach();

  const locatedDevice = (w: World, port: number) =>
    createWebDevice(w, 'located.probe-fixture.net', port, INTERVAL_S, { check_locations: ['eu', 'us'], quorum: 2 });

  it('a device checked from any one location: its results carry check_location null', async () => {
    const w = await open.world(opened().store, Date.parse('2026-05-04T10:00:00.000Z'));
    const target = await open.target();
    const device = await createWebDevice(w, 'anywhere.probe-fixture.net', target.port, INTERVAL_S);
    assert.equal((await w.engine({ location: 'eu' }).runOnce()).written, 1);
    const results = await w.call<DeviceProbeResult[]>(`/devices/results?id=${device.id}`);
    assert.deepEqual(
      results.map((r) => [r.probe, r.ok, r.check_location]),
      [['public_http', true, null]],
    );
  });

  it(
    'results name their location; in a window they are marked and nothing moves or is announced',
    { skip: name === 'memory' ? 'the memory store keeps no schedule per location' : false },
    async () => {
      const w = await open.world(opened().store, Date.parse('2026-05-04T10:00:00.000Z'));
      const target = await open.target();
      const { receiver, webhook } = await w.subscribe();
      const options = { retryDelayS: RETRY_S };
      const eu = w.engine({ ...options, location: 'eu', workerId: 'w-eu' });
      const us = w.engine({ ...options, location: 'us', workerId: 'w-us' });
      const both = async () => {
        await eu.runOnce();
        await us.runOnce();
      };
      const device = await locatedDevice(w, target.port);
      await both();
      assert.equal((await w.device(device.id)).status, 'up');
      const first = await w.call<DeviceProbeResult[]>(`/devices/results?id=${device.id}`);
      assert.deepEqual(
        first.map((r) => [r.probe, r.ok, r.check_location]),
        [
          ['public_http', true, 'us'],
          ['public_http', true, 'eu'],
        ],
      );

      // The window: 10:05 to 10:20; the target fails from then on, checked from 10:05:30.
      await w.call(
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
      const before = target.requests;
      for (let minute = 5; minute < 20; minute++) {
        w.clock.set(Date.parse(`2026-05-04T10:${String(minute).padStart(2, '0')}:30Z`));
        await both();
        const inside = await w.device(device.id);
        assert.deepEqual([inside.status, inside.status_since], ['maintenance', '2026-05-04T10:05:00.000Z']);
      }
      assert.ok(target.requests >= before + 28, `both locations checked every interval (${target.requests - before})`);
      const inside = await w.device(device.id);
      assert.deepEqual(
        [inside.locations?.eu?.status, inside.locations?.us?.status],
        ['failing', 'failing'],
        'the record shows what each location found',
      );
      const marked = await w.call<DeviceProbeResult[]>(`/devices/results?id=${device.id}&limit=28`);
      assert.equal(marked.length, 28);
      for (const result of marked) {
        assert.deepEqual([result.ok, result.maintenance], [false, true], JSON.stringify(result));
      }
      assert.deepEqual(new Set(marked.map((r) => r.check_location)), new Set(['eu', 'us']));

      // The window ends: pending and due at once at both; the failures now count, each confirmed
      // by its location's re-check a retry delay later: down once.
      w.clock.set(Date.parse('2026-05-04T10:20:00Z'));
      await both();
      assert.equal((await w.device(device.id)).status, 'validating');
      w.clock.advance(RETRY_S * 1000);
      await both();
      assert.equal((await w.device(device.id)).status, 'down');
      w.clock.advance(INTERVAL_S * 1000);
      await both();
      const events = receiver.received.map((request) => verifySigned(webhook.secret, request));
      assert.deepEqual(
        events.map((e) => [e.type, e.data.previous_status, e.data.status]),
        [
          ['device.maintenance_started', 'up', 'maintenance'],
          ['device.maintenance_ended', 'maintenance', 'pending'],
          ['device.down', 'validating', 'down'],
        ],
      );
      const [last] = await w.call<DeviceProbeResult[]>(`/devices/results?id=${device.id}&limit=1`);
      assert.equal(last?.maintenance, undefined, 'a check after the window is not marked');
    },
  );
});
