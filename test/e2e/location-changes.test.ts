/**
 * docs/engine.md, "Changing a record", for a device checked from several locations, through the
 * API and a running engine on the SQL stores (the memory store keeps no schedule per location): a
 * PATCH of `check_locations` moves the device's schedules with it, both ways, in the transaction
 * that writes the change; pause and resume stop and restart its locations' schedules; a check on
 * demand and the end of a maintenance window make its locations due.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Device } from '../../core/index.ts';
import { closedAfterEach, createWebDevice, eachStore, type World } from './harness.ts';

const INTERVAL_S = 30;

eachStore('changing the locations of a device the engine checks', (opened, name) => {
  const open = closedAfterEach();

  const located = (w: World, id: number, body: Record<string, unknown>) =>
    w.call<Device>(`/devices/update?id=${id}`, { method: 'PATCH', body });

  it(
    'a PATCH of check_locations moves the schedules both ways; pause, resume and a check on demand follow',
    {
      skip: name === 'memory' ? 'the memory store keeps no schedule per location' : false,
    },
    async () => {
      const w = await open.world(opened().store, Math.floor(Date.now() / 1000) * 1000);
      const target = await open.target();
      const eu = w.engine({ location: 'eu', workerId: 'w-eu' });
      const us = w.engine({ location: 'us', workerId: 'w-us' });
      const device = await createWebDevice(w, 'located.probe-fixture.net', target.port, INTERVAL_S);
      assert.equal(device.check_locations, null);

      // Any one location: checked once by whichever worker claims it first.
      assert.equal((await us.runOnce()).written, 1);
      assert.equal((await eu.runOnce()).claimed, 0);
      assert.equal((await w.device(device.id)).status, 'up');

      // Gains a location: no longer checked as a device of any one, due at once at eu and only there.
      const gained = await located(w, device.id, { check_locations: ['eu'], quorum: 1 });
      assert.deepEqual([gained.check_locations, gained.quorum, gained.status], [['eu'], 1, 'pending']);
      assert.deepEqual(Object.keys(gained.locations ?? {}), ['eu']);
      let requests = target.requests;
      assert.equal((await us.runOnce()).claimed, 0, 'a worker of another location does not claim it');
      assert.equal((await eu.runOnce()).written, 1, 'due at once at its location');
      assert.equal(target.requests, requests + 1);
      let now = await w.device(device.id);
      assert.deepEqual([now.status, now.quorum_state, now.locations?.eu?.status], ['up', 'met', 'up']);
      assert.equal((await eu.runOnce()).claimed, 0, 'one schedule: checked once until its next interval');
      assert.equal((await us.runOnce()).claimed, 0);

      // A check on demand makes its location due, not the device row.
      w.clock.advance(61_000);
      requests = target.requests;
      assert.equal((await w.raw(`/devices/check?id=${device.id}`, { method: 'POST' })).status, 202);
      assert.equal((await us.runOnce()).claimed, 0, 'not due as a device of any one location');
      assert.equal((await eu.runOnce()).written, 1, 'due at once at eu');
      assert.equal(target.requests, requests + 1);

      // Paused: its location is not checked, however long; resumed: due at once there.
      assert.equal((await located(w, device.id, { is_enabled: false })).status, 'paused');
      w.clock.advance(INTERVAL_S * 3000);
      assert.equal((await eu.runOnce()).claimed, 0, 'a paused device is not claimed at its location');
      assert.equal((await us.runOnce()).claimed, 0);
      assert.equal((await located(w, device.id, { is_enabled: true })).status, 'pending');
      assert.equal((await us.runOnce()).claimed, 0);
      assert.equal((await eu.runOnce()).written, 1, 'resumed: due at once at eu');
      assert.equal((await w.device(device.id)).status, 'up');

      // A maintenance window: the status is held; once it ends, due at once at eu, never as a device of one.
      const start = w.clock.now();
      await w.call(
        '/maintenance-windows/create',
        {
          method: 'POST',
          body: {
            name: 'w',
            starts_at: new Date(start).toISOString(),
            ends_at: new Date(start + 600_000).toISOString(),
            device_ids: [device.id],
          },
        },
        201,
      );
      await us.runOnce();
      assert.equal((await w.device(device.id)).status, 'maintenance');
      w.clock.advance(601_000);
      assert.equal((await us.runOnce()).claimed, 0, 'the window ended: not due as a device of any one location');
      assert.equal((await w.device(device.id)).status, 'pending');
      assert.equal((await eu.runOnce()).written, 1, 'due at once at eu');
      assert.equal((await w.device(device.id)).status, 'up');

      // Loses its locations: checked as a device of any one location again, due at once.
      const lost = await located(w, device.id, { check_locations: null, quorum: null });
      assert.deepEqual(
        [lost.check_locations, lost.quorum, lost.quorum_state, lost.locations, lost.status],
        [null, null, null, null, 'pending'],
      );
      requests = target.requests;
      assert.equal((await eu.runOnce()).written, 1, 'claimed as a device by any worker');
      assert.equal((await us.runOnce()).claimed, 0, 'and only once');
      assert.equal(target.requests, requests + 1);
      now = await w.device(device.id);
      assert.equal(now.status, 'up');
      w.clock.advance(INTERVAL_S * 1000);
      assert.equal((await us.runOnce()).written, 1, 'its next interval, at any location');
    },
  );
});
