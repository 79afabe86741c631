import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeviceCheckOutcome } from '../../core/store/monitoring-store.ts';
import type { DnsblListing, NewDeviceProbeResult } from '../../core/records/index.ts';
import { availabilityReport } from '../../core/reports/availability.ts';
import { dayStart } from '../../core/reports/rollups.ts';
import type { Store } from '../../core/store/store.ts';
import type { ContractContext } from './contract-context.ts';
import { createdOf, ipMonitor, sshDevice } from './records.ts';

// Reports through the store's surface (docs/engine.md, "Reports"): the timeline, incidents and
// listing periods every status path writes, response-time rollups and report retention. A store
// starts its rollups at the hour it was migrated (the memory store: made), so these tests put
// their checks two days after today, which no rollup has passed yet.

const DAY = 86_400_000;
const BASE = Date.parse(dayStart(Date.now())) + 2 * DAY;
let base = BASE;
/**
 * Makes `t` count from the n-th day after BASE. A database one suite shares keeps its rollup
 * progress from test to test, so each test that rolls up has days of its own, after the last's.
 */
export function useDay(n: number): void {
  base = BASE + n * DAY;
}
/** The test's base plus some minutes. */
export const t = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
const dayRange = () => ({ from: t(0), to: t(24 * 60) });

export function failing(at: string, error = 'timeout'): NewDeviceProbeResult {
  return { checked_at: at, probe: 'service', ok: false, response_ms: null, error, banner: null };
}

export function passing(at: string, ms = 3): NewDeviceProbeResult {
  return { checked_at: at, probe: 'service', ok: true, response_ms: ms, error: null, banner: 'SSH-2.0' };
}

/** A device of `userId`'s, enabled, created at BASE. */
export async function newDevice(store: Store, userId: number, name = 'ssh.example.com') {
  return createdOf(
    await store.createDevice(
      userId,
      sshDevice({ target_value: name, is_enabled: true, status: 'pending', created_at: t(0) }),
    ),
  );
}

/** Claims the device at `minute` and records a check with `status`; true when it was written. */
export async function check(
  store: Store,
  deviceId: number,
  minute: number,
  status: DeviceCheckOutcome['status'],
  results: NewDeviceProbeResult[] = [status === 'down' ? failing(t(minute)) : passing(t(minute))],
  owner = 'worker-a',
): Promise<boolean> {
  const claims = await store.claimDueDevices({ owner, now: t(minute), limit: 100, leaseUntil: t(minute + 1) });
  const claimed = claims.find((c) => c.record.id === deviceId);
  assert.ok(claimed !== undefined, `device ${deviceId} is due at minute ${minute}`);
  const [written] = await store.recordDeviceChecks([
    {
      lease: claimed.lease,
      outcome: {
        checked_at: t(minute),
        previous_status: claimed.record.status,
        status,
        consecutive_failures: status === 'down' ? 3 : 0,
        results,
        next_check_at: t(minute),
        events: [],
      },
    },
  ]);
  return written!;
}

/** Exact nearest-rank quantile. */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

export function reportsContract(ctx: ContractContext): void {
  describe('reports', () => {
    it('keeps a 10-minute outage in a day exactly: 99.3056 %, one incident of 600 s with its cause', async () => {
      useDay(0);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      assert.equal(await check(store, device.id, 0, 'up'), true);
      assert.equal(await check(store, device.id, 60, 'down', [failing(t(60), 'connection refused')]), true);
      assert.equal(await check(store, device.id, 65, 'down'), true, 'a second down check changes nothing');
      assert.equal(await check(store, device.id, 70, 'up'), true);

      const totals = await store.deviceStatusTotals(user.id, device.id, dayRange());
      assert.deepEqual(totals, {
        ms: { up: 86_400_000 - 600_000, down: 600_000 },
        down_periods: 1,
        longest_down_ms: 600_000,
      });
      const report = availabilityReport(dayRange(), totals!);
      assert.equal(report.availability, 99.3056);
      assert.deepEqual([report.downtime_s, report.incidents, report.unknown_s], [600, 1, 0]);

      const incidents = await store.listIncidents(user.id, { ...dayRange(), limit: 10 });
      assert.deepEqual(
        incidents?.map(({ id: _id, ...rest }) => rest),
        [
          {
            device_id: device.id,
            heartbeat_id: null,
            started_at: t(60),
            resolved_at: t(70),
            duration_s: 600,
            cause: { probe: 'service', error: 'connection refused' },
            locations: null,
            acknowledged_at: null,
            acknowledged_by: null,
          },
        ],
      );
      // Time before the device existed is in no status.
      const earlier = await store.deviceStatusTotals(user.id, device.id, { from: t(-60), to: t(60) });
      assert.equal(availabilityReport({ from: t(-60), to: t(60) }, earlier!).unknown_s, 3600);
    });

    it('answers undefined for another user, and pages incidents newest first by id', async () => {
      useDay(0);
      const store = ctx.store();
      const [alice, bob] = [await ctx.newUser(), await ctx.newUser()];
      const device = await newDevice(store, alice.id);
      await check(store, device.id, 0, 'up');
      for (const minute of [10, 30, 50]) {
        await check(store, device.id, minute, 'down');
        await check(store, device.id, minute + 5, 'up');
      }
      assert.equal(await store.deviceStatusTotals(bob.id, device.id, dayRange()), undefined);
      assert.equal(await store.listResponseTimes(bob.id, device.id, { ...dayRange(), bucket: 'hour' }), undefined);
      assert.equal(await store.listIncidents(bob.id, { ...dayRange(), device_id: device.id, limit: 10 }), undefined);
      assert.deepEqual(await store.listIncidents(bob.id, { ...dayRange(), limit: 10 }), []);
      const all = await store.listIncidents(alice.id, { ...dayRange(), device_id: device.id, limit: 10 });
      assert.deepEqual(
        all?.map((i) => i.started_at),
        [t(50), t(30), t(10)],
      );
      const page = await store.listIncidents(alice.id, { ...dayRange(), limit: 1, before_id: all![0]!.id });
      assert.deepEqual(
        page?.map((i) => i.started_at),
        [t(30)],
      );
      // Only incidents overlapping the range.
      const overlapping = await store.listIncidents(alice.id, { from: t(33), to: t(52), limit: 10 });
      assert.deepEqual(
        overlapping?.map((i) => i.started_at),
        [t(50), t(30)],
      );
    });

    it('counts paused time (setEnabled, an update) and maintenance time apart from up and down', async () => {
      useDay(0);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      await check(store, device.id, 0, 'up');
      assert.equal(await store.setEnabled('device', device.id, false, t(60)), true);
      assert.equal(await store.setEnabled('device', device.id, true, t(120)), true);
      await check(store, device.id, 120, 'up');
      // A maintenance window over minutes 180 to 240, with an outage inside it.
      const window = {
        user_id: user.id,
        device_ids: [device.id],
        blacklist_monitor_ids: [],
        heartbeat_ids: [],
        started_at: t(180),
      };
      assert.equal(await store.syncMaintenance([window], t(180)), 1);
      await check(store, device.id, 200, 'maintenance', [failing(t(200))]);
      assert.equal(await store.syncMaintenance([], t(240)), 1);
      await check(store, device.id, 240, 'up');
      // A pause and a resume by update (PATCH), minutes 300 to 330.
      const update = async (isEnabled: boolean, minute: number) => {
        const from = (await store.getDevice(user.id, device.id))!;
        const { id: _id, ...fields } = from;
        const result = await store.updateDevice(user.id, device.id, {
          from,
          to: { ...fields, is_enabled: isEnabled },
          fields: ['is_enabled'],
          effect: isEnabled ? 'resume' : 'pause',
          at: t(minute),
          events: [],
        });
        assert.ok(result !== undefined && 'updated' in result, JSON.stringify(result));
      };
      await update(false, 300);
      await update(true, 330);
      await check(store, device.id, 330, 'up');

      const report = availabilityReport(dayRange(), (await store.deviceStatusTotals(user.id, device.id, dayRange()))!);
      assert.deepEqual(
        [report.paused_s, report.maintenance_s, report.downtime_s, report.uptime_s, report.availability],
        [5400, 3600, 0, 86_400 - 9000, 100],
      );
      assert.deepEqual(await store.listIncidents(user.id, { ...dayRange(), limit: 10 }), []);
    });

    it('keeps listing periods by zone; a failed lookup keeps its listing open', async () => {
      useDay(0);
      const store = ctx.store();
      const user = await ctx.newUser();
      const monitor = createdOf(
        await store.createBlacklistMonitor(user.id, ipMonitor({ is_enabled: true, created_at: t(0) })),
      );
      const listing = (zone: string, since: string): DnsblListing => ({
        zone,
        answer: '127.0.0.2',
        meaning: null,
        policy: false,
        delist_url: null,
        since,
      });
      const record = async (minute: number, listings: DnsblListing[], failed: string[] = []) => {
        const claims = await store.claimDueBlacklistMonitors({
          owner: 'w',
          now: t(minute),
          limit: 10,
          leaseUntil: t(minute + 1),
        });
        const claimed = claims.find((c) => c.record.id === monitor.id)!;
        const outcome = {
          checked_at: t(minute),
          last_status: listings.length > 0 ? ('listed' as const) : ('clean' as const),
          listed_on: listings.map((l) => l.zone),
          failed_zones: failed,
          listings,
          rdns: null,
          results: [],
          next_check_at: t(minute),
          events: [],
        };
        assert.deepEqual(await store.recordBlacklistChecks([{ lease: claimed.lease, outcome }]), [true]);
      };
      await record(0, [listing('a.example', t(0))]);
      await record(10, [listing('a.example', t(0)), listing('b.example', t(10))]);
      // b's lookup fails: the engine keeps its listing, and the period stays open.
      await record(20, [listing('a.example', t(0)), listing('b.example', t(10))], ['b.example']);
      await record(30, [listing('b.example', t(10))]);
      await record(40, [listing('a.example', t(40)), listing('b.example', t(10))]);
      assert.deepEqual(await store.listListingPeriods(user.id, monitor.id, dayRange()), [
        { zone: 'a.example', answer: '127.0.0.2', listed_at: t(0), delisted_at: t(30) },
        { zone: 'b.example', answer: '127.0.0.2', listed_at: t(10), delisted_at: null },
        { zone: 'a.example', answer: '127.0.0.2', listed_at: t(40), delisted_at: null },
      ]);
      assert.deepEqual(
        (await store.listListingPeriods(user.id, monitor.id, { from: t(31), to: t(39) }))?.map((p) => p.zone),
        ['b.example'],
      );
      const other = await ctx.newUser();
      assert.equal(await store.listListingPeriods(other.id, monitor.id, dayRange()), undefined);
    });

    it('rolls an hour up once: p95 within 5 % of exact, two workers\u2019 checks in one row, raw and rolled alike', async () => {
      useDay(3);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      // 100 checks in the first hour, from two workers, response times (0..99)² / 10 + 1 ms.
      const values: number[] = [];
      for (let i = 0; i < 100; i++) {
        const minute = i * 0.25;
        const ms = Math.round(((i * 37) % 100) ** 2 / 10) + 1;
        values.push(ms);
        assert.equal(await check(store, device.id, minute, 'up', [passing(t(minute), ms)], i % 2 ? 'w1' : 'w2'), true);
      }
      await check(store, device.id, 90, 'up', [passing(t(90), 10)]);
      const hourQuery = { from: t(0), to: t(120), bucket: 'hour' as const };
      const raw = await store.listResponseTimes(user.id, device.id, hourQuery);
      assert.equal(raw?.length, 2);
      const exact = exactQuantile(values, 0.95);
      const [first] = raw!;
      assert.equal(first!.checks, 100);
      assert.ok(Math.abs(first!.p95_ms! - exact) <= exact * 0.05, `p95 ${first!.p95_ms} against exact ${exact}`);
      assert.deepEqual(
        [first!.min_ms, first!.max_ms, first!.failures, first!.at],
        [Math.min(...values), Math.max(...values), 0, t(0)],
      );

      const rolled = await store.rollUpResults!(t(120), 1000);
      assert.ok(rolled >= 2, `rolled ${rolled} hours`);
      assert.equal(await store.rollUpResults!(t(120), 1000), 0, 'each hour once');
      assert.deepEqual(await store.listResponseTimes(user.id, device.id, hourQuery), raw, 'rolled as raw');
      // Raw results gone: the rollups still answer.
      assert.ok((await store.deleteCheckResultsBefore(t(120), 100_000)) >= 101);
      assert.deepEqual(await store.listResponseTimes(user.id, device.id, hourQuery), raw, 'from rollups alone');
    });

    it('answers days from daily rows, today from hours and raw results, and days in a time zone', async () => {
      useDay(6);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      await check(store, device.id, 0, 'up', [passing(t(0), 10)]);
      await check(store, device.id, 23 * 60 + 30, 'up', [passing(t(23 * 60 + 30), 30)]);
      await check(store, device.id, 24 * 60 + 30, 'down', [failing(t(24 * 60 + 30))]);
      await check(store, device.id, 25 * 60 + 30, 'up', [passing(t(25 * 60 + 30), 50)]);
      const query = { from: t(0), to: t(48 * 60), bucket: 'day' as const };
      const expected = [
        { at: t(0), probe: 'service', checks: 2, failures: 0, avg_ms: 20, p95_ms: 30, min_ms: 10, max_ms: 30 },
        { at: t(24 * 60), probe: 'service', checks: 2, failures: 1, avg_ms: 50, p95_ms: 50, min_ms: 50, max_ms: 50 },
      ];
      assert.deepEqual(await store.listResponseTimes(user.id, device.id, query), expected, 'all raw');
      await store.rollUpResults!(t(25 * 60), 1000);
      assert.deepEqual(await store.listResponseTimes(user.id, device.id, query), expected, 'a daily row, an hour, raw');
      // In New York (UTC-5 in this season or -4) the day's first check falls on the day before.
      const zoned = await store.listResponseTimes(user.id, device.id, {
        ...query,
        from: t(-24 * 60),
        time_zone: 'America/New_York',
      });
      assert.equal(zoned?.length, 2);
      assert.deepEqual(
        zoned!.map((p) => p.checks),
        [1, 3],
      );
    });

    it('expires old reports but keeps the status at the cutoff known', async () => {
      useDay(9);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      await check(store, device.id, 0, 'up');
      await check(store, device.id, 10, 'down');
      await check(store, device.id, 20, 'up');
      await check(store, device.id, 200, 'down');
      await store.rollUpResults!(t(120), 1000);
      const deleted = await store.deleteReportsBefore!(t(100), 1000);
      // Two rollup hours (minutes 0-60 and 60-120: the latter has none), the closed incident, and
      // the changes before the one at minute 20 (created, up, down).
      assert.equal(deleted, 1 + 1 + 3);
      assert.equal(await store.deleteReportsBefore!(t(100), 1000), 0);
      const totals = await store.deviceStatusTotals(user.id, device.id, { from: t(100), to: t(300) });
      assert.deepEqual(totals, {
        ms: { up: 100 * 60_000, down: 100 * 60_000 },
        down_periods: 1,
        longest_down_ms: 6_000_000,
      });
      assert.deepEqual(
        (await store.listIncidents(user.id, { ...dayRange(), limit: 10 }))?.map((i) => i.started_at),
        [t(200)],
        'the open incident stays',
      );
    });

    it('keeps raw results until their hour is rolled up, whatever the retention asks', async () => {
      useDay(12);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      await check(store, device.id, 0, 'up');
      await check(store, device.id, 10, 'up');
      const kept = async () => (await store.listCheckResults(user.id, 'device', device.id, { limit: 10 }))?.length;
      // The retention would take everything before minute 300; the hours are not rolled up yet.
      await store.deleteCheckResultsBefore(t(300), 1000);
      assert.equal(await kept(), 2, 'nothing goes before its hour is rolled up');
      await store.rollUpResults!(t(120), 100_000);
      await store.deleteCheckResultsBefore(t(300), 1000);
      assert.equal(await kept(), 0, 'rolled up, they go');
      const series = await store.listResponseTimes(user.id, device.id, { ...dayRange(), bucket: 'hour' });
      assert.deepEqual(
        series?.map((p) => [p.at, p.checks]),
        [[t(0), 2]],
        'and the rollup answers for them',
      );
    });

    it('says which days are closed for good and where a device\u2019s daily rows begin', async () => {
      useDay(15);
      const store = ctx.store();
      const [user, other] = [await ctx.newUser(), await ctx.newUser()];
      const device = await newDevice(store, user.id);
      assert.equal(await store.closedSeriesDays!(other.id, device.id), undefined, 'another user\u2019s device');
      assert.equal((await store.closedSeriesDays!(user.id, device.id))?.firstDay, null, 'no daily row yet');
      await check(store, device.id, 0, 'up');
      await check(store, device.id, 24 * 60 + 10, 'up');
      await store.rollUpResults!(t(24 * 60 + 60), 1000);
      // The day the progress lies in is not closed, however much of it is rolled up.
      assert.deepEqual(await store.closedSeriesDays!(user.id, device.id), { closedUntil: t(24 * 60), firstDay: t(0) });
      await store.rollUpResults!(t(48 * 60), 1000);
      assert.deepEqual(await store.closedSeriesDays!(user.id, device.id), {
        closedUntil: t(48 * 60),
        firstDay: t(0),
      });
      while ((await store.deleteReportsBefore!(t(24 * 60), 1000)) > 0);
      assert.equal((await store.closedSeriesDays!(user.id, device.id))?.firstDay, t(24 * 60), 'after the retention');
      assert.equal(await store.deleteDevice(user.id, device.id), true);
      assert.equal(await store.closedSeriesDays!(user.id, device.id), undefined, 'a deleted device');
    });
  });
}
