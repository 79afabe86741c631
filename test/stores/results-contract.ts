import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewMonitoringEvent } from '../../core/records/index.ts';
import { claimAt, deviceCheck } from './claims-contract.ts';
import type { ContractContext } from './contract-context.ts';
import {
  at,
  createdOf,
  dnsblResult,
  httpsResult,
  MAX_ID,
  ipMonitor,
  serviceResult,
  sshDevice,
  tlsResult,
  webDevice,
} from './records.ts';

/**
 * Drops the ids the store gave, to compare results with what the engine handed over, and the
 * location, null for every record checked here (none has check_locations).
 */
function withoutIds<T extends { id: number; check_id: number; check_location: string | null }>(
  rows: readonly T[] | undefined,
): Omit<T, 'id' | 'check_id' | 'check_location'>[] {
  assert.ok(rows !== undefined, 'expected results, got undefined');
  return rows.map(({ id: _id, check_id: _checkId, check_location, ...rest }) => {
    assert.equal(check_location, null, 'a record checked from any one location');
    return rest;
  });
}

/** Check results, their retention and the event outbox, through the public store surface. */
export function resultsContract(ctx: ContractContext): void {
  describe('check results and events', () => {
    it("lists a record's results newest first, in pages before an id, only to its owner", async () => {
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const device = createdOf(await store.createDevice(alice.id, webDevice({ is_enabled: true, status: 'pending' })));
      const neighbour = createdOf(await store.createDevice(alice.id, sshDevice()));
      const recorded = [];
      for (let minute = 1; minute <= 3; minute++) {
        const claims = await store.claimDueDevices(claimAt(minute * 10));
        const results = [httpsResult(at(minute)), tlsResult(at(minute), minute !== 2)];
        recorded.push(...results);
        const checks = claims.map((c) => deviceCheck(c, minute * 10, c.lease.id === device.id ? { results } : {}));
        assert.deepEqual(
          await store.recordDeviceChecks(checks),
          checks.map(() => true),
        );
      }
      const newestFirst = [...recorded].reverse();
      const all = await store.listCheckResults(alice.id, 'device', device.id, { limit: 100 });
      assert.deepEqual(withoutIds(all), newestFirst);
      const ids = all!.map((r) => r.id);
      assert.deepEqual(
        [...ids].sort((x, y) => y - x),
        ids,
        'ids descend',
      );
      // Two rows per check, newest first: each pair shares a check id, and later checks have larger ones.
      const checkIds = all!.map((r) => r.check_id);
      for (let i = 0; i < checkIds.length; i += 2) assert.equal(checkIds[i], checkIds[i + 1], `rows ${i} and ${i + 1}`);
      assert.ok(
        checkIds[0]! > checkIds[2]! && checkIds[2]! > checkIds[4]!,
        `check ids descend: ${checkIds.join(', ')}`,
      );
      const neighbours = await store.listCheckResults(alice.id, 'device', neighbour.id, { limit: 100 });
      assert.equal(new Set([...checkIds, ...neighbours!.map((r) => r.check_id)]).size, 6, 'every check has its own id');
      const page = await store.listCheckResults(alice.id, 'device', device.id, { limit: 2, beforeId: ids[1] });
      assert.deepEqual(
        page?.map((r) => r.id),
        ids.slice(2, 4),
      );
      assert.deepEqual(await store.listCheckResults(alice.id, 'device', device.id, { limit: 5, beforeId: ids[5] }), []);
      assert.equal((await store.listCheckResults(alice.id, 'device', neighbour.id, { limit: 100 }))?.length, 3);
      assert.equal(await store.listCheckResults(bob.id, 'device', device.id, { limit: 100 }), undefined);
      assert.equal(await store.listCheckResults(alice.id, 'device', MAX_ID, { limit: 100 }), undefined);
      assert.equal(await store.listCheckResults(alice.id, 'blacklist_monitor', MAX_ID, { limit: 100 }), undefined);
    });

    it('keeps one result per DNSBL zone with its fields', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor()));
      const [claimed] = await store.claimDueBlacklistMonitors(claimAt(0));
      const results = [dnsblResult(at(1), 'zen.example', true), dnsblResult(at(1), 'bl.example', false)];
      const outcome = {
        checked_at: at(1),
        last_status: 'listed' as const,
        listed_on: ['zen.example'],
        failed_zones: [],
        results,
        next_check_at: at(61),
        events: [],
        listings: [],
        rdns: null,
      };
      assert.deepEqual(await store.recordBlacklistChecks([{ lease: claimed!.lease, outcome }]), [true]);
      assert.deepEqual(
        withoutIds(await store.listCheckResults(user.id, 'blacklist_monitor', monitor.id, { limit: 10 })),
        [...results].reverse(),
      );
      assert.deepEqual(
        await store.listCheckResults(user.id, 'device', monitor.id, { limit: 10 }),
        undefined,
        'no device has that id',
      );
    });

    it("deletes a record's results with it", async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = createdOf(await store.createDevice(user.id, sshDevice()));
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor()));
      const [claimed] = await store.claimDueDevices(claimAt(1));
      const [monitorClaim] = await store.claimDueBlacklistMonitors(claimAt(1));
      assert.deepEqual(
        await store.recordDeviceChecks([
          deviceCheck(claimed!, 2, { results: [serviceResult(at(2), true), httpsResult(at(2))] }),
        ]),
        [true],
      );
      const monitorOutcome = {
        checked_at: at(2),
        last_status: 'clean' as const,
        listed_on: [],
        failed_zones: [],
        results: [dnsblResult(at(2), 'zen.example', false)],
        next_check_at: at(62),
        events: [],
        listings: [],
        rdns: null,
      };
      assert.deepEqual(await store.recordBlacklistChecks([{ lease: monitorClaim!.lease, outcome: monitorOutcome }]), [
        true,
      ]);
      assert.equal(await store.deleteDevice(user.id, device.id), true);
      assert.equal(await store.listCheckResults(user.id, 'device', device.id, { limit: 10 }), undefined);
      // Only the monitor's result is left for the retention to find.
      assert.equal(await store.deleteCheckResultsBefore(at(1000), 100), 1);
      const again = createdOf(await store.createDevice(user.id, sshDevice()));
      assert.deepEqual(await store.listCheckResults(user.id, 'device', again.id, { limit: 10 }), []);
      assert.equal(await store.deleteBlacklistMonitor(user.id, monitor.id), true);
    });

    it('deletes at most the limit of results older than the cutoff, oldest first', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = createdOf(await store.createDevice(user.id, sshDevice()));
      const [claimed] = await store.claimDueDevices(claimAt(1));
      const results = [1, 2, 3, 4, 5].map((minute) => serviceResult(at(minute), true));
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(claimed!, 5, { results })]), [true]);
      assert.equal(await store.deleteCheckResultsBefore(at(4), 0), 0);
      assert.equal(await store.deleteCheckResultsBefore(at(4), 2), 2);
      assert.equal(await store.deleteCheckResultsBefore(at(4), 2), 1);
      assert.equal(await store.deleteCheckResultsBefore(at(4), 2), 0, 'a result at the cutoff is kept');
      const left = await store.listCheckResults(user.id, 'device', device.id, { limit: 10 });
      assert.deepEqual(
        left?.map((r) => r.checked_at),
        [at(5), at(4)],
      );
    });

    it('writes events to the outbox with their checks, and only with checks that are written', async (t) => {
      const read = ctx.events();
      if (read === undefined) return t.skip('this store keeps its outbox to itself');
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = createdOf(await store.createDevice(user.id, sshDevice()));
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor()));
      const [stale] = await store.claimDueDevices(claimAt(1));
      const [current] = await store.claimDueDevices(claimAt(6));
      const down: NewMonitoringEvent = {
        type: 'device.down',
        created_at: at(7),
        data: { ...device, status: 'down', previous_status: 'pending' },
      };
      const lost = deviceCheck(stale!, 7, { status: 'down', events: [down] });
      assert.deepEqual(await store.recordDeviceChecks([lost]), [false]);
      assert.deepEqual(await read(), []);
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(current!, 7, { status: 'down', events: [down] })]), [
        true,
      ]);
      const [monitorClaim] = await store.claimDueBlacklistMonitors(claimAt(8));
      const listed: NewMonitoringEvent = {
        type: 'blacklist.listed',
        created_at: '2026-11-22T07:08:00Z',
        data: {
          ...monitor,
          last_status: 'listed',
          listed_on: ['zen.example'],
          previous_status: null,
          status: 'listed',
        },
      };
      const outcome = {
        checked_at: at(8),
        last_status: 'listed' as const,
        listed_on: ['zen.example'],
        failed_zones: [],
        results: [],
        next_check_at: at(68),
        events: [listed],
        listings: [],
        rdns: null,
      };
      assert.deepEqual(await store.recordBlacklistChecks([{ lease: monitorClaim!.lease, outcome }]), [true]);
      assert.deepEqual(await read(), [
        {
          type: 'device.down',
          user_id: user.id,
          resource_kind: 'device',
          resource_id: device.id,
          created_at: at(7),
          data: down.data,
        },
        {
          type: 'blacklist.listed',
          user_id: user.id,
          resource_kind: 'blacklist_monitor',
          resource_id: monitor.id,
          created_at: at(8),
          data: listed.data,
        },
      ]);
    });
  });
}
