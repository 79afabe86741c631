import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  BlacklistCheckOutcome,
  ClaimRequest,
  ClaimedDevice,
  DeviceCheckOutcome,
  RecordedCheck,
} from '../../core/store/monitoring-store.ts';
import type { Device } from '../../core/records/index.ts';
import type { ContractContext } from './contract-context.ts';
import {
  ALL,
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

/** A claim at `now` (minutes after T0) whose leases run for five minutes. */
export function claimAt(now: number, limit = 100, owner = 'worker-a'): ClaimRequest {
  return { owner, now: at(now), limit, leaseUntil: at(now + 5) };
}

/** A passed check of a claimed device at `minutes`, due again a minute later. */
export function deviceCheck(
  claimed: ClaimedDevice,
  minutes: number,
  overrides: Partial<DeviceCheckOutcome> = {},
): RecordedCheck<DeviceCheckOutcome> {
  return {
    lease: claimed.lease,
    outcome: {
      checked_at: at(minutes),
      previous_status: claimed.record.status,
      status: 'up',
      consecutive_failures: 0,
      results: [serviceResult(at(minutes), true)],
      next_check_at: at(minutes + 1),
      events: [],
      ...overrides,
    },
  };
}

/** The record's engine fields after a check, as a list shows them. */
function checkedDevice(device: Device, outcome: DeviceCheckOutcome, statusSince: string | null): Device {
  const last = { ...device.last_results };
  for (const result of outcome.results) Object.assign(last, { [result.probe]: result });
  return {
    ...device,
    status: outcome.status,
    status_since: statusSince,
    last_checked_at: outcome.checked_at,
    last_results: last,
  };
}

/** Claims, leases and fenced writes (docs/engine.md, "Scheduling"), through the public store surface. */
export function claimsContract(ctx: ContractContext): void {
  describe('claims and fenced check writes', () => {
    it('claims a new enabled record at once, never a disabled one, with the record as stored', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const ssh = createdOf(await store.createDevice(user.id, sshDevice({ created_at: at(1) })));
      createdOf(await store.createDevice(user.id, webDevice({ is_enabled: false })));
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor({ created_at: at(1) })));
      createdOf(await store.createBlacklistMonitor(user.id, ipMonitor({ target_value: '9.9.9.9', is_enabled: false })));
      assert.deepEqual(await store.claimDueDevices(claimAt(0)), [], 'not yet due before its creation');
      assert.deepEqual(await store.claimDueBlacklistMonitors(claimAt(0)), []);
      const [device] = await store.claimDueDevices(claimAt(1));
      assert.ok(device);
      assert.deepEqual(device.record, ssh);
      assert.equal(device.due_at, at(1));
      assert.equal(device.consecutive_failures, 0);
      assert.deepEqual(
        { ...device.lease, token: 'x' },
        { id: ssh.id, token: 'x', owner: 'worker-a', expires_at: at(6) },
      );
      const monitors = await store.claimDueBlacklistMonitors(claimAt(60 * 24));
      assert.deepEqual(
        monitors.map((c) => [c.record, c.due_at]),
        [[monitor, at(1)]],
      );
      assert.deepEqual(await store.claimDueDevices(claimAt(5)), [], 'leased, and the disabled one never');
    });

    it('claims at most the limit, earliest due first, ties by id', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const created = [];
      for (const [port, minute] of [
        [1, 3],
        [2, 1],
        [3, 2],
        [4, 1],
      ] as const) {
        created.push(createdOf(await store.createDevice(user.id, sshDevice({ port, created_at: at(minute) }))));
      }
      const first = await store.claimDueDevices(claimAt(10, 3));
      assert.deepEqual(
        first.map((c) => c.record.port),
        [2, 4, 3],
      );
      assert.deepEqual(
        first.map((c) => c.due_at),
        [at(1), at(1), at(2)],
      );
      assert.deepEqual(
        (await store.claimDueDevices(claimAt(10, 3))).map((c) => c.record.port),
        [1],
      );
      assert.deepEqual(await store.claimDueDevices(claimAt(10, 0)), []);
    });

    it('claims a leased record again only once its lease has run out, under a new token', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor()));
      const [first] = await store.claimDueBlacklistMonitors(claimAt(0));
      assert.equal(first?.lease.id, monitor.id);
      assert.deepEqual(await store.claimDueBlacklistMonitors(claimAt(4, 10, 'worker-b')), []);
      const [again] = await store.claimDueBlacklistMonitors(claimAt(5, 10, 'worker-b'));
      assert.equal(again?.lease.owner, 'worker-b');
      assert.equal(again.due_at, at(5), 'due again when its lease ran out: nothing was recorded');
      assert.notEqual(again.lease.token, first!.lease.token);
    });

    it('writes a check only under the lease it ran with: a stale lease writes nothing, results included', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = createdOf(await store.createDevice(user.id, sshDevice()));
      const [stale] = await store.claimDueDevices(claimAt(1));
      const [current] = await store.claimDueDevices(claimAt(6, 10, 'worker-b'));
      assert.ok(stale && current);
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(stale, 7)]), [false]);
      assert.deepEqual(await store.listDevices(user.id, ALL), [device]);
      assert.deepEqual(await store.listCheckResults(user.id, 'device', device.id, { limit: 10 }), []);
      const check = deviceCheck(current, 8);
      assert.deepEqual(await store.recordDeviceChecks([check]), [true]);
      assert.deepEqual(await store.listDevices(user.id, ALL), [checkedDevice(device, check.outcome, at(8))]);
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(current, 9)]), [false], 'the lease is used up');
      assert.equal((await store.listCheckResults(user.id, 'device', device.id, { limit: 10 }))?.length, 1);
    });

    it('writes a device check only while the device still has the status the check started from', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      createdOf(await store.createDevice(user.id, sshDevice()));
      const [claimed] = await store.claimDueDevices(claimAt(1));
      assert.ok(claimed);
      const wrong = deviceCheck(claimed, 2, { previous_status: 'up', status: 'validating' });
      assert.deepEqual(await store.recordDeviceChecks([wrong]), [false]);
      assert.equal((await store.listDevices(user.id, ALL))[0]?.status, 'pending');
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(claimed, 2)]), [true], 'the lease still holds');
    });

    it('answers a batch in input order, and moves status, results and schedule as each check says', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const a = createdOf(await store.createDevice(user.id, sshDevice({ port: 1 })));
      const b = createdOf(await store.createDevice(user.id, webDevice({ is_enabled: true, status: 'pending' })));
      const claims = await store.claimDueDevices(claimAt(1));
      const [ca, cb] = [claims.find((c) => c.lease.id === a.id)!, claims.find((c) => c.lease.id === b.id)!];
      const bResults = [httpsResult(at(2)), tlsResult(at(2))];
      const unknown = deviceCheck({ ...ca, lease: { ...ca.lease, id: MAX_ID } }, 2);
      const answers = await store.recordDeviceChecks([
        unknown,
        deviceCheck(cb, 2, { results: bResults, next_check_at: at(7) }),
        deviceCheck(ca, 2, { status: 'validating', consecutive_failures: 1 }),
      ]);
      assert.deepEqual(answers, [false, true, true]);
      const [bothDue, bDue] = [await store.claimDueDevices(claimAt(3)), await store.claimDueDevices(claimAt(7))];
      assert.deepEqual(
        bothDue.map((c) => [c.lease.id, c.due_at, c.consecutive_failures]),
        [[a.id, at(3), 1]],
      );
      assert.deepEqual(
        bDue.map((c) => [c.lease.id, c.due_at]),
        [[b.id, at(7)]],
      );
      // A later check keeps the status (status_since stays) and the results of probes it did not run.
      const tlsOnly = deviceCheck(bDue[0]!, 8, { results: [tlsResult(at(8), false)], status: 'up' });
      assert.deepEqual(await store.recordDeviceChecks([tlsOnly]), [true]);
      const listed = await store.listDevices(user.id, ALL);
      assert.deepEqual(
        listed.find((d) => d.id === b.id),
        {
          ...b,
          status: 'up',
          status_since: at(2),
          last_checked_at: at(8),
          last_results: { public_https: bResults[0], public_tls: tlsResult(at(8), false) },
        },
      );
      assert.deepEqual(listed.find((d) => d.id === a.id)?.status, 'validating');
    });

    it('records blacklist checks under their leases, in batches', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor()));
      const other = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor({ target_value: '1.1.1.1' })));
      const claims = await store.claimDueBlacklistMonitors(claimAt(0));
      const outcome: BlacklistCheckOutcome = {
        checked_at: '2026-11-22T07:07:00.5Z',
        last_status: 'listed',
        listed_on: ['b.example', 'zen.example'],
        failed_zones: ['bad.example'],
        next_check_at: at(67),
        events: [],
        listings: [],
        rdns: null,
        results: [
          dnsblResult(at(7), 'zen.example', true),
          dnsblResult(at(7), 'b.example', true),
          { ...dnsblResult(at(7), 'bad.example', false), ok: false, error: 'timeout', response_ms: null },
        ],
      };
      const checks = claims.map((c) => ({
        lease: c.lease,
        outcome: { ...outcome, results: c.lease.id === monitor.id ? outcome.results : [] },
      }));
      const stale = { ...checks[1]!, lease: { ...checks[1]!.lease, token: 'not-the-lease' } };
      assert.deepEqual(await store.recordBlacklistChecks([stale, ...checks, checks[0]!]), [false, true, true, false]);
      const checked = {
        last_status: 'listed',
        last_checked_at: '2026-11-22T07:07:00.500Z',
        listed_on: outcome.listed_on,
        failed_zones: outcome.failed_zones,
      };
      assert.deepEqual(await store.listBlacklistMonitors(user.id, ALL), [
        { ...monitor, ...checked },
        { ...other, ...checked },
      ]);
      assert.deepEqual(await store.claimDueBlacklistMonitors(claimAt(66)), []);
      assert.deepEqual(
        (await store.claimDueBlacklistMonitors(claimAt(67))).map((c) => c.due_at),
        [at(67), at(67)],
      );
      assert.deepEqual(await store.recordBlacklistChecks([]), []);
    });

    it('setEnabled pauses a record (dropping its lease) and makes it due again when enabled', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = createdOf(await store.createDevice(user.id, sshDevice()));
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor()));
      const [inFlight] = await store.claimDueDevices(claimAt(1));
      const [monitorInFlight] = await store.claimDueBlacklistMonitors(claimAt(1));
      assert.equal(await store.setEnabled('device', device.id, false, at(2)), true);
      assert.equal(await store.setEnabled('blacklist_monitor', monitor.id, false, at(2)), true);
      assert.equal(await store.setEnabled('device', device.id, false, at(3)), true, 'already disabled: no change');
      const paused = { ...device, is_enabled: false, status: 'paused' as const, status_since: at(2) };
      assert.deepEqual(await store.listDevices(user.id, ALL), [paused]);
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(inFlight!, 2)]), [false]);
      const monitorCheck = {
        lease: monitorInFlight!.lease,
        outcome: {
          checked_at: at(2),
          last_status: 'clean' as const,
          listed_on: [],
          failed_zones: [],
          results: [],
          next_check_at: at(3),
          events: [],
          listings: [],
          rdns: null,
        },
      };
      assert.deepEqual(await store.recordBlacklistChecks([monitorCheck]), [false]);
      assert.deepEqual(await store.claimDueDevices(claimAt(60)), []);
      assert.deepEqual(await store.claimDueBlacklistMonitors(claimAt(60)), []);
      assert.equal(await store.setEnabled('device', device.id, true, at(70)), true);
      assert.equal(await store.setEnabled('blacklist_monitor', monitor.id, true, at(70)), true);
      assert.deepEqual(await store.listDevices(user.id, ALL), [{ ...device, status: 'pending', status_since: at(70) }]);
      assert.deepEqual(await store.listBlacklistMonitors(user.id, ALL), [monitor]);
      assert.deepEqual(await store.claimDueDevices(claimAt(69)), []);
      assert.deepEqual(
        (await store.claimDueDevices(claimAt(70))).map((c) => [c.record.id, c.due_at]),
        [[device.id, at(70)]],
      );
      assert.deepEqual(
        (await store.claimDueBlacklistMonitors(claimAt(70))).map((c) => c.due_at),
        [at(70)],
      );
      assert.equal(await store.setEnabled('device', MAX_ID, true, at(70)), false);
      assert.equal(await store.setEnabled('blacklist_monitor', MAX_ID, false, at(70)), false);
    });

    it("keeps a monitor's zones, count_policy_listings, listings and rdns as created and as a check writes them", async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const monitor = createdOf(
        await store.createBlacklistMonitor(
          user.id,
          ipMonitor({ zones: ['b.example', 'zen.example'], count_policy_listings: true }),
        ),
      );
      assert.deepEqual(
        [monitor.zones, monitor.count_policy_listings, monitor.listings, monitor.rdns],
        [['b.example', 'zen.example'], true, [], null],
      );
      const [claimed] = await store.claimDueBlacklistMonitors(claimAt(0));
      assert.ok(claimed);
      const listings = [
        { zone: 'b.example', answer: '127.0.0.2', meaning: null, policy: false, delist_url: null, since: at(0) },
        {
          zone: 'zen.example',
          answer: '127.0.0.2,127.0.0.10',
          meaning: 'SBL: "spam" ✓; PBL',
          policy: false,
          delist_url: 'https://check.example/',
          since: '2026-11-01T00:00:00.000Z',
        },
      ];
      const outcome: BlacklistCheckOutcome = {
        checked_at: at(1),
        last_status: 'listed',
        listed_on: ['b.example', 'zen.example'],
        failed_zones: [],
        results: [],
        next_check_at: at(61),
        events: [],
        listings,
        rdns: 'mail.example.net',
      };
      assert.deepEqual(await store.recordBlacklistChecks([{ lease: claimed.lease, outcome }]), [true]);
      const [shown] = await store.listBlacklistMonitors(user.id, ALL);
      assert.deepEqual(shown, {
        ...monitor,
        last_status: 'listed',
        last_checked_at: at(1),
        listed_on: outcome.listed_on,
        listings,
        rdns: 'mail.example.net',
      });
    });

    it('requestCheck: makes an enabled record due at once, at most once per gap, never a paused or foreign one', async () => {
      const store = ctx.store();
      const user = await ctx.newUser();
      const other = await ctx.newUser();
      const device = createdOf(await store.createDevice(user.id, sshDevice({ created_at: at(0) })));
      const monitor = createdOf(await store.createBlacklistMonitor(user.id, ipMonitor({ created_at: at(0) })));
      const paused = createdOf(await store.createDevice(user.id, webDevice({ is_enabled: false })));
      // Checked once: the next checks are due an hour later.
      const [claimedDevice] = await store.claimDueDevices(claimAt(0));
      assert.deepEqual(await store.recordDeviceChecks([deviceCheck(claimedDevice!, 1, { next_check_at: at(61) })]), [
        true,
      ]);
      const [claimedMonitor] = await store.claimDueBlacklistMonitors(claimAt(0));
      const outcome: BlacklistCheckOutcome = {
        checked_at: at(1),
        last_status: 'clean',
        listed_on: [],
        failed_zones: [],
        results: [],
        next_check_at: at(61),
        events: [],
        listings: [],
        rdns: null,
      };
      assert.deepEqual(await store.recordBlacklistChecks([{ lease: claimedMonitor!.lease, outcome }]), [true]);
      assert.deepEqual(await store.claimDueDevices(claimAt(10)), []);
      const GAP = 60_000;

      const due = await store.requestCheck(user.id, 'device', device.id, at(10), GAP);
      assert.equal(due.outcome, 'due');
      assert.deepEqual(
        due.outcome === 'due' ? due.record : null,
        (await store.listDevices(user.id, ALL)).find((d) => d.id === device.id),
      );
      const monitorDue = await store.requestCheck(user.id, 'blacklist_monitor', monitor.id, at(10), GAP);
      assert.equal(monitorDue.outcome, 'due');
      assert.equal(monitorDue.outcome === 'due' ? monitorDue.record.id : 0, monitor.id);
      assert.deepEqual(
        (await store.claimDueDevices(claimAt(10))).map((c) => [c.record.id, c.due_at]),
        [[device.id, at(10)]],
        'due at the request',
      );
      assert.deepEqual(
        (await store.claimDueBlacklistMonitors(claimAt(10))).map((c) => [c.record.id, c.due_at]),
        [[monitor.id, at(10)]],
      );

      // Within the gap: refused, with when the next may come; the gap counts from the request that took effect.
      const halfMinute = new Date(Date.parse(at(10)) + 30_000).toISOString();
      assert.deepEqual(await store.requestCheck(user.id, 'device', device.id, halfMinute, GAP), {
        outcome: 'too_soon',
        retry_at: at(11),
      });
      assert.deepEqual(await store.requestCheck(user.id, 'blacklist_monitor', monitor.id, halfMinute, GAP), {
        outcome: 'too_soon',
        retry_at: at(11),
      });
      assert.equal(
        (await store.requestCheck(user.id, 'device', device.id, at(11), GAP)).outcome,
        'due',
        'a gap later it takes effect again',
      );

      assert.deepEqual(await store.requestCheck(user.id, 'device', paused.id, at(20), GAP), { outcome: 'paused' });
      assert.deepEqual(
        await store.requestCheck(other.id, 'device', device.id, at(20), GAP),
        { outcome: 'not_found' },
        "another user's record",
      );
      assert.deepEqual(await store.requestCheck(user.id, 'blacklist_monitor', MAX_ID, at(20), GAP), {
        outcome: 'not_found',
      });
      assert.deepEqual(await store.requestCheck(user.id, 'device', MAX_ID, at(20), GAP), { outcome: 'not_found' });

      // Disabling and enabling keeps the gap: a request just after enabling is judged by the last one.
      assert.equal(await store.setEnabled('device', device.id, false, at(11)), true);
      assert.deepEqual(await store.requestCheck(user.id, 'device', device.id, at(11), GAP), { outcome: 'paused' });
      assert.equal(await store.setEnabled('device', device.id, true, at(11)), true);
      assert.deepEqual(await store.requestCheck(user.id, 'device', device.id, halfMinuteAfter(at(11)), GAP), {
        outcome: 'too_soon',
        retry_at: at(12),
      });
    });
  });
}

function halfMinuteAfter(stamp: string): string {
  return new Date(Date.parse(stamp) + 30_000).toISOString();
}
