/**
 * Reports on the SQL store (docs/engine.md, "Reports"), where only SQLite and PostgreSQL show it:
 * the quorum path's status changes reach the timeline through the triggers; on PostgreSQL three
 * workers writing the same `down` change open one incident, two workers rolling up at once roll
 * each hour once, and expiry drops whole day partitions; migration 0011 over a database in
 * service keeps its raw results (moved into partitions on PostgreSQL) and starts its timeline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { ClaimedLocationCheck, NewDevice } from '../../core/index.ts';
import { locationDecider } from '../../engine/devices/location-check.ts';
import { migrateToLatest, openKyselyStore } from '../../stores/kysely/index.ts';
import { partitionName } from '../../stores/kysely/reports/result-partitions.ts';
import { freshSqlDatabase } from '../support/stores.ts';
import { createdOf, sshDevice } from './records.ts';
import { check, failing, newDevice, passing, t, useDay } from './reports-contract.ts';
import { migrationsFrom } from './migration-names.ts';
import { migrateBefore } from './migration-databases.ts';

const DAY = 86_400_000;

async function open(kind: 'sqlite' | 'postgres', migrate = true) {
  const database = await freshSqlDatabase(kind);
  if ('skip' in database) return { skip: database.skip };
  const opened = await openKyselyStore(database.url);
  if (migrate) await migrateToLatest(opened.db);
  return {
    ...opened,
    url: database.url,
    async cleanup() {
      await opened.store.close();
      await database.remove();
    },
  };
}

const located = (created: string): NewDevice =>
  sshDevice({
    is_enabled: true,
    status: 'pending',
    created_at: created,
    check_locations: ['eu', 'us', 'ap'],
    quorum: 2,
    locations: {},
  });

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`reports on ${kind}`, () => {
    it('records the quorum path: the location that made the device down is the cause', async (context) => {
      const db = await open(kind);
      if ('skip' in db) return context.skip(db.skip);
      try {
        useDay(0);
        const { store } = db;
        const at = (s: number) => new Date(Date.parse(t(0)) + s * 1000).toISOString();
        const settings = {
          retryDelayS: 30,
          probeTimeoutMs: 10_000,
          failuresBeforeDown: 2,
          random: () => 0.5,
          tlsWarnDays: 14,
        };
        const user = await store.createUser({ name: null, created_at: at(0) });
        for (const location of ['eu', 'us', 'ap']) {
          await store.recordHeartbeat!({ worker_id: `w-${location}`, location, version: 't', started_at: at(0) });
        }
        const id = createdOf(await store.createDevice(user.id, located(at(0)))).id;
        const claim = async (location: string, s: number) =>
          (
            await store.claimDueLocationChecks!({
              owner: location,
              location,
              now: at(s),
              limit: 10,
              leaseUntil: at(s + 100),
            })
          )[0];
        const record = (c: ClaimedLocationCheck | undefined, ok: boolean, s: number) => {
          const outcome = {
            location: c!.location,
            checked_at: at(s),
            results: [ok ? passing(at(s)) : failing(at(s), 'ECONNREFUSED')],
          };
          return store.recordLocationCheck!({ lease: c!.lease, outcome }, locationDecider(c!.lease, outcome, settings));
        };
        assert.equal(await record(await claim('eu', 1), false, 2), true);
        assert.equal(await record(await claim('us', 1), false, 3), true);
        assert.equal(await record(await claim('eu', 3), false, 4), true);
        // Each failure confirmed by its location's re-check a retry delay later (the re-check rule).
        assert.equal(await record(await claim('us', 33), false, 33), true);
        assert.equal(await record(await claim('eu', 34), false, 34), true);
        const device = await store.getDevice(user.id, id);
        assert.equal(device?.status, 'down');
        const incidents = await store.listIncidents(user.id, { from: at(0), to: at(100), limit: 10 });
        assert.deepEqual(
          incidents?.map(({ id: _id, ...rest }) => rest),
          [
            {
              device_id: id,
              heartbeat_id: null,
              started_at: at(34),
              resolved_at: null,
              duration_s: null,
              cause: { probe: 'service', error: 'ECONNREFUSED', location: 'eu' },
              locations: { eu: 'failing', us: 'failing', ap: 'unknown' },
              acknowledged_at: null,
              acknowledged_by: null,
            },
          ],
        );
        const totals = await store.deviceStatusTotals(user.id, id, { from: at(0), to: at(40) });
        assert.deepEqual(totals, {
          ms: { pending: 3000, validating: 31000, down: 6000 },
          down_periods: 1,
          longest_down_ms: 6000,
        });
      } finally {
        await db.cleanup();
      }
    });

    it('migration 0011 keeps raw results and ids, and starts the timeline and rollups at the upgrade', async (context) => {
      const db = await open(kind, false);
      if ('skip' in db) return context.skip(db.skip);
      try {
        useDay(0);
        await migrateBefore(db.db, db.dialect, '0011');
        const now = Date.now();
        const old = (days: number) => new Date(now - days * DAY).toISOString();
        const user = await db.store.createUser({ name: null, created_at: old(5) });
        const up = await newDevice(db.store, user.id, 'up.example.com');
        const down = await newDevice(db.store, user.id, 'down.example.com');
        // Results of three days before the upgrade, written as the engine writes them.
        const flag = db.dialect === 'postgres' ? sql.lit(true) : sql.lit(1);
        for (const days of [3, 2, 1]) {
          await sql`insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields)
            values ('device', ${up.id}, ${old(days)}, 'service', ${flag}, 5, null, '{}')`.execute(db.db);
        }
        await sql`update devices set status = 'down', status_since = ${old(1)} where id = ${down.id}`.execute(db.db);
        const kept = await db.store.listCheckResults(user.id, 'device', up.id, { limit: 10 });
        assert.equal(kept?.length, 3);

        assert.deepEqual(await migrateToLatest(db.db), migrationsFrom('0011_reports'));
        assert.deepEqual(await db.store.listCheckResults(user.id, 'device', up.id, { limit: 10 }), kept);
        if (db.dialect === 'postgres') {
          const { rows } = await sql<{ partition: string; n: string }>`
            select tableoid::regclass::text as partition, count(*) as n from check_results group by 1 order by 1`.execute(
            db.db,
          );
          assert.deepEqual(
            rows.map((r) => [r.partition, Number(r.n)]),
            [3, 2, 1].map((days) => [partitionName(Date.parse(old(days).slice(0, 10))), 1]),
            'each day in its partition',
          );
        }
        // New rows get ids after the old ones.
        await check(db.store, up.id, 0, 'up');
        const after = await db.store.listCheckResults(user.id, 'device', up.id, { limit: 10 });
        assert.equal(after?.length, 4);
        assert.ok(after![0]!.id > kept![0]!.id);
        // The timeline starts at the upgrade: before it, nothing is known; the down device has its incident.
        const totals = await db.store.deviceStatusTotals(user.id, up.id, { from: old(4), to: old(3) });
        assert.deepEqual(totals, { ms: {}, down_periods: 0, longest_down_ms: 0 });
        const incidents = await db.store.listIncidents(user.id, { from: old(2), to: t(60), limit: 10 });
        assert.deepEqual(
          incidents?.map((i) => [i.device_id, i.started_at, i.resolved_at, i.cause]),
          [[down.id, old(1), null, null]],
        );
        // Rollups start at the upgrade's hour: the old results are never rolled up.
        useDay(0);
        await db.store.rollUpResults!(t(0), 10_000);
        const series = await db.store.listResponseTimes(user.id, up.id, { from: old(4), to: t(0), bucket: 'hour' });
        assert.deepEqual(series, [], 'hours before the upgrade are not rolled up, nor read raw');
      } finally {
        await db.cleanup();
      }
    });
  });
}

describe('reports on PostgreSQL, concurrently', () => {
  it('three workers writing the same down change open one incident', async (context) => {
    const db = await open('postgres');
    if ('skip' in db) return context.skip(db.skip);
    const others = [await openKyselyStore(db.url), await openKyselyStore(db.url)];
    try {
      useDay(0);
      const user = await db.store.createUser({ name: null, created_at: t(0) });
      const device = await newDevice(db.store, user.id);
      await check(db.store, device.id, 0, 'up');
      const [claimed] = await db.store.claimDueDevices({ owner: 'w', now: t(1), limit: 1, leaseUntil: t(2) });
      const write = {
        lease: claimed!.lease,
        outcome: {
          checked_at: t(1),
          previous_status: 'up' as const,
          status: 'down' as const,
          consecutive_failures: 3,
          results: [failing(t(1))],
          next_check_at: t(2),
          events: [],
        },
      };
      const stores = [db.store, ...others.map((o) => o.store)];
      const written = await Promise.all(stores.map((store) => store.recordDeviceChecks([write])));
      assert.deepEqual(written.flat().filter(Boolean).length, 1, 'one write took effect');
      const incidents = await db.store.listIncidents(user.id, { from: t(0), to: t(60), limit: 10 });
      assert.equal(incidents?.length, 1);
      const changes = await sql<{
        n: string;
      }>`select count(*) as n from status_changes where device_id = ${device.id}`.execute(db.db);
      assert.equal(Number(changes.rows[0]!.n), 3, 'created, up, down');
    } finally {
      await Promise.all(others.map((o) => o.store.close()));
      await db.cleanup();
    }
  });

  it('two workers rolling up at once roll each hour once', async (context) => {
    const db = await open('postgres');
    if ('skip' in db) return context.skip(db.skip);
    const other = await openKyselyStore(db.url);
    try {
      useDay(0);
      const user = await db.store.createUser({ name: null, created_at: t(0) });
      const device = await newDevice(db.store, user.id);
      for (let minute = 0; minute < 180; minute += 20) await check(db.store, device.id, minute, 'up');
      const { rows: start } = await sql<{ hours: string }>`
        select extract(epoch from (${t(180)}::timestamptz - rolled_until)) / 3600 as hours from report_progress`.execute(
        db.db,
      );
      const rolled = await Promise.all([
        db.store.rollUpResults!(t(180), 1000),
        other.store.rollUpResults!(t(180), 1000),
      ]);
      const { rows } = await sql<{ start: string; n: string }>`
        select count(*) as n from device_rollups_hourly where device_id = ${device.id}`.execute(db.db);
      assert.equal(Number(rows[0]!.n), 3, 'one row per hour');
      const { rows: progress } = await sql<{ hours: string }>`
        select extract(epoch from (rolled_until - ${t(180)}::timestamptz)) as hours from report_progress`.execute(
        db.db,
      );
      assert.equal(Number(progress[0]!.hours), 0);
      // Together they rolled every hour from the upgrade to t(180), each once.
      const { rows: upgrade } = await sql<{ n: string }>`
        select count(*) as n from device_rollups_hourly`.execute(db.db);
      assert.equal(Number(upgrade[0]!.n), 3);
      assert.equal(rolled[0]! + rolled[1]!, Number(start[0]!.hours), 'every hour from the upgrade on, once');
      const points = await db.store.listResponseTimes(user.id, device.id, { from: t(0), to: t(180), bucket: 'hour' });
      assert.deepEqual(
        points?.map((p) => p.checks),
        [3, 3, 3],
      );
    } finally {
      await other.store.close();
      await db.cleanup();
    }
  });

  it('makes the partitions of the days ahead, moving their rows out of the default partition', async (context) => {
    const db = await open('postgres');
    if ('skip' in db) return context.skip(db.skip);
    try {
      useDay(0);
      const user = await db.store.createUser({ name: null, created_at: t(0) });
      const device = await newDevice(db.store, user.id);
      // The day two days ahead loses its partition: its rows go to the default partition.
      const day = partitionName(Date.parse(t(0)));
      await sql`drop table ${sql.table(day)}`.execute(db.db);
      await check(db.store, device.id, 0, 'up');
      const where = async () =>
        (
          await sql<{ partition: string }>`
            select tableoid::regclass::text as partition from check_results where resource_id = ${device.id}`.execute(
            db.db,
          )
        ).rows.map((r) => r.partition);
      assert.deepEqual(await where(), ['check_results_default']);
      const old = new Date(Date.parse(t(0)) - 30 * DAY).toISOString();
      assert.equal(await db.store.deleteCheckResultsBefore(old, 1000), 0);
      assert.deepEqual(await where(), [day], 'moved into the day\u2019s new partition');
      assert.equal((await db.store.listCheckResults(user.id, 'device', device.id, { limit: 10 }))?.length, 1);
    } finally {
      await db.cleanup();
    }
  });

  it('expires whole days by dropping their partitions; reports still answer from rollups', async (context) => {
    const db = await open('postgres');
    if ('skip' in db) return context.skip(db.skip);
    try {
      useDay(0);
      const user = await db.store.createUser({ name: null, created_at: t(0) });
      const device = await newDevice(db.store, user.id);
      // Checks on the day two days ahead (its partition was made by the migration) and the next.
      for (const minute of [0, 30, 24 * 60 + 30]) await check(db.store, device.id, minute, 'up');
      await db.store.rollUpResults!(t(24 * 60), 10_000);
      const partitions = async () =>
        (
          await sql<{ name: string }>`
            select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = 'check_results'::regclass order by 1`.execute(db.db)
        ).rows.map((r) => r.name);
      const day = partitionName(Date.parse(t(0)));
      assert.ok((await partitions()).includes(day));
      assert.equal(await db.store.deleteCheckResultsBefore(t(24 * 60), 1000), 2, 'the day\u2019s two rows');
      const left = await partitions();
      assert.ok(!left.includes(day), 'the partition is gone');
      assert.ok(left.includes(partitionName(Date.parse(t(24 * 60)))), 'the next day is kept');
      assert.equal((await db.store.listCheckResults(user.id, 'device', device.id, { limit: 10 }))?.length, 1);
      const series = await db.store.listResponseTimes(user.id, device.id, {
        from: t(0),
        to: t(48 * 60),
        bucket: 'day',
      });
      assert.deepEqual(
        series?.map((p) => [p.at, p.checks]),
        [
          [t(0), 2],
          [t(24 * 60), 1],
        ],
      );
    } finally {
      await db.cleanup();
    }
  });
});
