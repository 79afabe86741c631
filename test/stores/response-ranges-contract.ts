import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResponseTimeQuery } from '../../core/reports/report-records.ts';
import type { Store } from '../../core/store/store.ts';
import type { ContractContext } from './contract-context.ts';
import { check, newDevice, passing, t, useDay } from './reports-contract.ts';

// Response times over a range cut inside its first and last buckets (docs/engine.md, "Reports"):
// every bucket that overlaps [from, to) is answered, its checks counted inside the range while the
// raw results of the cut hours are kept, and a cut hour counted whole once only its rollup is left.
// Each test has days of its own after reports-contract.ts's: a database the suite shares keeps its
// rollup progress from test to test.

/** Records a passing check at `minute` with `ms` of response time. */
async function timed(store: Store, deviceId: number, minute: number, ms: number): Promise<void> {
  assert.equal(await check(store, deviceId, minute, 'up', [passing(t(minute), ms)]), true);
}

/** The series as [at, checks, min_ms, max_ms] per point. */
async function series(store: Store, userId: number, deviceId: number, query: ResponseTimeQuery) {
  const points = await store.listResponseTimes(userId, deviceId, query);
  return points?.map((p) => [p.at, p.checks, p.min_ms, p.max_ms]);
}

/** Deletes every raw result checked before `before`, batch after batch. */
async function expireResults(store: Store, before: string): Promise<void> {
  while ((await store.deleteCheckResultsBefore(before, 1000)) > 0);
}

export function responseRangesContract(ctx: ContractContext): void {
  describe('response times over a range cut inside its buckets', () => {
    it('hour buckets: the first and last hours count the checks inside the range, then whole once raw results go', async () => {
      useDay(20);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      // 07:10 and 09:40 lie outside the range 07:22 to 09:25; their times would show in min or max.
      const checks: [number, number][] = [
        [7 * 60 + 10, 1000],
        [7 * 60 + 30, 10],
        [7 * 60 + 50, 20],
        [8 * 60 + 20, 30],
        [9 * 60 + 5, 40],
        [9 * 60 + 40, 2000],
      ];
      for (const [minute, ms] of checks) await timed(store, device.id, minute, ms);
      const query = { from: t(7 * 60 + 22), to: t(9 * 60 + 25), bucket: 'hour' as const };
      const exact = [
        [t(7 * 60), 2, 10, 20],
        [t(8 * 60), 1, 30, 30],
        [t(9 * 60), 1, 40, 40],
      ];
      assert.deepEqual(await series(store, user.id, device.id, query), exact, 'raw results');
      assert.deepEqual(
        await series(store, user.id, device.id, { from: t(7 * 60 + 22), to: t(7 * 60 + 45), bucket: 'hour' }),
        [[t(7 * 60), 1, 10, 10]],
        'a range inside one hour',
      );
      await store.rollUpResults!(t(12 * 60), 1000);
      assert.deepEqual(await series(store, user.id, device.id, query), exact, 'rolled up, raw results kept');

      // The retention takes 07:10 alone: hour 07 is no longer whole in raw results, and its rollup answers.
      await expireResults(store, t(7 * 60 + 20));
      assert.deepEqual(
        await series(store, user.id, device.id, query),
        [[t(7 * 60), 3, 10, 1000], exact[1], exact[2]],
        'the first hour from its rollup, whole',
      );
      await expireResults(store, t(12 * 60));
      assert.deepEqual(
        await series(store, user.id, device.id, query),
        [[t(7 * 60), 3, 10, 1000], exact[1], [t(9 * 60), 2, 40, 2000]],
        'both cut hours from their rollups, whole',
      );
    });

    it('day buckets, in UTC and in a time zone: the first and last days count the checks inside the range', async () => {
      useDay(23);
      const store = ctx.store();
      const user = await ctx.newUser();
      const device = await newDevice(store, user.id);
      const day = 24 * 60;
      // The range runs from day 0 10:30 to day 2 09:15; 05:00, 10:10 (day 0), 09:40 and 18:00 (day 2) lie outside.
      const checks: [number, number][] = [
        [5 * 60, 500],
        [10 * 60 + 10, 700],
        [20 * 60, 10],
        [day + 12 * 60, 20],
        [2 * day + 3 * 60, 30],
        [2 * day + 9 * 60 + 40, 800],
        [2 * day + 18 * 60, 900],
      ];
      for (const [minute, ms] of checks) await timed(store, device.id, minute, ms);
      const range = { from: t(10 * 60 + 30), to: t(2 * day + 9 * 60 + 15) };
      const utc = { ...range, bucket: 'day' as const };
      // Tokyo (UTC+9, no daylight saving time): local days begin at 15:00 UTC.
      const tokyo = { ...utc, time_zone: 'Asia/Tokyo' };
      const exactUtc = [
        [t(0), 1, 10, 10],
        [t(day), 1, 20, 20],
        [t(2 * day), 1, 30, 30],
      ];
      const exactTokyo = [
        [t(15 * 60), 2, 10, 20],
        [t(day + 15 * 60), 1, 30, 30],
      ];
      assert.deepEqual(await series(store, user.id, device.id, utc), exactUtc, 'UTC, raw results');
      assert.deepEqual(await series(store, user.id, device.id, tokyo), exactTokyo, 'Tokyo, raw results');
      // Days 0 to 2 rolled into daily rows; the cut days are still counted inside the range.
      await store.rollUpResults!(t(3 * day), 1000);
      assert.deepEqual(await series(store, user.id, device.id, utc), exactUtc, 'UTC, rolled up');
      assert.deepEqual(await series(store, user.id, device.id, tokyo), exactTokyo, 'Tokyo, rolled up');

      await expireResults(store, t(3 * day));
      // Rollups alone: the cut hours (day 0 10:00, day 2 09:00) count whole, the other hours as before.
      assert.deepEqual(
        await series(store, user.id, device.id, utc),
        [[t(0), 2, 10, 700], exactUtc[1], [t(2 * day), 2, 30, 800]],
        'UTC, rollups alone',
      );
      assert.deepEqual(
        await series(store, user.id, device.id, tokyo),
        [[t(-9 * 60), 1, 700, 700], exactTokyo[0], [t(day + 15 * 60), 2, 30, 800]],
        'Tokyo, rollups alone',
      );
    });
  });
}
