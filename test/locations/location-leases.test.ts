/**
 * docs/engine.md, "Scheduling" and "Checking a device from several locations": the lease of a
 * (device, location) pair under an injected clock that stands still between runs. A pair whose
 * worker died is claimed again exactly when its lease runs out by that clock, by one worker only,
 * and the dead worker's late result is fenced. On the SQL stores (the memory store keeps no
 * schedule per location), through engines of one location and the store's claim.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { locationDecider } from '../../engine/devices/location-check.ts';
import { closedAfterEach, createWebDevice, eachStore } from '../e2e/harness.ts';

const START = Date.parse('2026-05-04T10:00:00.000Z');
const LEASE_MS = 120_000;
const SETTINGS = { retryDelayS: 30, probeTimeoutMs: 10_000, failuresBeforeDown: 2, random: () => 0.5, tlsWarnDays: 14 };

eachStore('location leases under a frozen clock', (opened, name) => {
  const open = closedAfterEach();

  it(
    "a dead worker's pair: claimed again once, when its lease runs out by the clock; its late result fenced",
    { skip: name === 'memory' ? 'the memory store keeps no schedule per location' : false },
    async () => {
      const w = await open.world(opened().store, START);
      const target = await open.target();
      const device = await createWebDevice(w, 'leased.probe-fixture.net', target.port, 60, { check_locations: ['eu'] });
      const at = (ms: number) => new Date(ms).toISOString();
      // A worker of eu claims the pair and dies before writing.
      const [dead] = await w.store.claimDueLocationChecks!({
        owner: 'dead',
        location: 'eu',
        now: at(START),
        limit: 10,
        leaseUntil: at(START + LEASE_MS),
      });
      assert.equal(dead?.record.id, device.id);
      const eu = w.engine({ location: 'eu', workerId: 'w-eu', leaseMs: LEASE_MS });
      const other = w.engine({ location: 'eu', workerId: 'w-eu-2', leaseMs: LEASE_MS });

      // The clock stands still: the lease holds, however often the workers ask.
      for (let i = 0; i < 3; i++) assert.equal((await eu.runOnce()).claimed, 0);
      w.clock.set(START + LEASE_MS - 1);
      assert.equal((await eu.runOnce()).claimed, 0, 'a millisecond before the lease runs out');
      w.clock.set(START + LEASE_MS);
      assert.deepEqual(
        [(await eu.runOnce()).written, (await other.runOnce()).claimed],
        [1, 0],
        'claimed again by one worker, at the expiry',
      );
      assert.equal((await eu.runOnce()).claimed, 0, 'and not again at the same instant');
      const checked = await w.device(device.id);
      assert.deepEqual([checked.status, checked.locations?.eu?.last_checked_at], ['up', at(START + LEASE_MS)]);

      // The dead worker's result, whatever time it says, is fenced: the pair has another lease since.
      for (const s of [START + 1000, START + LEASE_MS]) {
        const outcome = { location: 'eu', checked_at: at(s), results: [] };
        const decide = locationDecider(dead!.lease, outcome, SETTINGS);
        assert.equal(await w.store.recordLocationCheck!({ lease: dead!.lease, outcome }, decide), false);
      }
      assert.equal((await w.device(device.id)).locations?.eu?.last_checked_at, at(START + LEASE_MS));

      // Its next check is one interval after the one written, by the same frozen clock.
      w.clock.set(START + LEASE_MS + 60_000 - 1);
      assert.equal((await other.runOnce()).claimed, 0);
      w.clock.set(START + LEASE_MS + 60_000);
      assert.equal((await other.runOnce()).written, 1);
    },
  );
});
