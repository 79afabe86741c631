/**
 * `npm run bench -- --only reports` (docs/performance.md, "Reports"): the report queries over 400
 * days against GET /me, which need the API's server and its load generator
 * (bench/api/report-queries.ts), then what the reports cost to keep and to expire, on PostgreSQL,
 * each against today's layout in the same run.
 */
import { sql, type Kysely } from 'kysely';
import type { DeviceCheckOutcome, NewDeviceProbeResult, RecordedCheck } from '../core/index.ts';
import { migrateToLatest, openKyselyStore, type Database, type OpenedKyselyStore } from '../stores/kysely/index.ts';
import { dayPartitions, ensureDayPartition } from '../stores/kysely/reports/result-partitions.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import { benchReportQueries } from './api/report-queries.ts';
import type { BenchRun, Report } from './benchmark.ts';
import { benchDevice } from './seed.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PROBES = ['public_https', 'public_tls'] as const;

/** A device's id and its owner's, made through the store. */
async function oneDevice(opened: OpenedKyselyStore, name: string): Promise<{ userId: number; deviceId: number }> {
  const user = await opened.store.createUser({ name, created_at: new Date().toISOString() });
  const created = await opened.store.createDevice(user.id, {
    ...benchDevice(`${name}.example.com`),
    created_at: new Date(0).toISOString(),
    status: 'up',
    status_since: new Date(0).toISOString(),
  });
  if (!('created' in created)) throw new Error('the bench device was not created');
  return { userId: user.id, deviceId: created.created.id };
}

const stamp = (ms: number) => new Date(ms).toISOString();

/** Bytes of a table with its indexes (PostgreSQL), its partitions included. */
async function tableBytes(db: Kysely<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ bytes: string }>`
    select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes from pg_class c
    where c.oid = cast(${table} as regclass)
       or c.oid in (select inhrelid from pg_inherits where inhparent = cast(${table} as regclass))`.execute(db);
  return Number(rows[0]!.bytes);
}

/** Raw results of one day for `devices` devices from `firstId`, two probes every `everyS` seconds, in SQL. */
async function seedRawDay(db: Kysely<Database>, firstId: number, devices: number, dayMs: number, everyS: number) {
  await ensureDayPartition(db, dayMs, await dayPartitions(db));
  // In chunks of devices: one statement per chunk stays well within the store's statement timeout.
  for (let start = 0; start < devices; start += 500) {
    const end = Math.min(devices, start + 500) - 1;
    await sql`insert into check_results (resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields, check_id)
      select 'device', ${firstId} + d, ${stamp(dayMs)}::timestamptz + make_interval(secs => s * ${everyS} + d % ${everyS}),
        p, true, 80 + (s * 7 + d) % 40, null, '{"http_status":200}', s
      from generate_series(cast(${start} as integer), cast(${end} as integer)) d,
        generate_series(0, cast(${86_400 / everyS - 1} as integer)) s,
        unnest(array['public_https', 'public_tls']) p`.execute(db);
  }
}

/**
 * Storage: rows and bytes per device per day kept long-term, raw results (today's layout keeps
 * them for the whole retention) against the new layout's rollups, for devices at 60 s with two
 * probes. The rollups are made by the store's own `rollUpResults` from a day of real raw rows.
 */
async function benchStorage(opened: OpenedKyselyStore, report: Report, devices: number): Promise<void> {
  const { db, store } = opened;
  const day = Date.parse('2026-01-05T00:00:00.000Z');
  const ids: number[] = [];
  for (let i = 0; i < devices; i++) ids.push((await oneDevice(opened, `storage-${i}`)).deviceId);
  // The device ids are consecutive: one user per device, made in order.
  await seedRawDay(db, ids[0]!, devices, day, 60);
  await sql`analyze check_results`.execute(db);
  const rawRows = 2 * 1440;
  const rawBytes = (await tableBytes(db, 'check_results')) / devices;
  await db
    .updateTable('report_progress')
    .set({ rolled_until: stamp(day) })
    .execute();
  await store.rollUpResults(stamp(day + DAY_MS), 24);
  const count = async (table: 'device_rollups_hourly' | 'device_rollups_daily') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const newRows = ((await count('device_rollups_hourly')) + (await count('device_rollups_daily'))) / devices;
  const newBytes =
    ((await tableBytes(db, 'device_rollups_hourly')) + (await tableBytes(db, 'device_rollups_daily'))) / devices;
  report(
    'storage per device per day (60 s, 2 probes)',
    `raw results ${rawRows} rows, ${Math.round(rawBytes)} bytes`,
    `rollups ${newRows} rows, ${Math.round(newBytes)} bytes`,
    `rows 1/${(rawRows / newRows).toFixed(1)}, bytes 1/${(rawBytes / newBytes).toFixed(1)}`,
    'target rows <= 1/50',
  );
  await sql`truncate check_results`.execute(db);
}

/**
 * Expiry: a day of raw results at `devices` devices (two probes every `everyS` seconds), dropped
 * as a partition by the store, against today's batched deletes (1,000 rows a statement, by
 * `checked_at`) of the same rows in an unpartitioned copy. The deletes are timed over `sample`
 * batches and scaled to the day: timing all of them would take minutes.
 */
async function benchExpiry(opened: OpenedKyselyStore, report: Report, devices: number, everyS: number, sample: number) {
  const { db, store } = opened;
  const day = Date.parse('2026-01-10T00:00:00.000Z');
  await seedRawDay(db, 1_000_000, devices, day, everyS);
  const rows = devices * 2 * (86_400 / everyS);
  await sql`create table check_results_copy as select * from check_results where checked_at >= ${stamp(day)}`.execute(
    db,
  );
  await sql`create index check_results_copy_checked_at on check_results_copy (checked_at)`.execute(db);
  await sql`vacuum analyze check_results_copy`.execute(db);
  // Wall time of statements run one at a time on an otherwise idle database: the database's time.
  let started = performance.now();
  for (let i = 0; i < sample; i++)
    await sql`delete from check_results_copy where ctid = any(array(
        select ctid from check_results_copy where checked_at < ${stamp(day + DAY_MS)} limit 1000))`.execute(db);
  const deleteMs = ((performance.now() - started) * rows) / (sample * 1000);

  started = performance.now();
  await store.deleteCheckResultsBefore(stamp(day + DAY_MS), 1000);
  const dropMs = performance.now() - started;
  // The same call again, with nothing left to drop: what the sweep costs besides the drop (its
  // lock, the partitions ahead, the search for stray rows).
  started = performance.now();
  await store.deleteCheckResultsBefore(stamp(day + DAY_MS), 1000);
  const sweepMs = performance.now() - started;
  report(
    `expiring one day of raw results (${devices} devices, ${rows} rows)`,
    `partition drop ${dropMs.toFixed(1)} ms (the sweep without a drop ${sweepMs.toFixed(1)} ms)`,
    `batched deletes ${(deleteMs / 1000).toFixed(1)} s (scaled from ${sample} batches of 1,000)`,
    `ratio 1/${Math.round(deleteMs / dropMs)}`,
  );
  await sql`drop table check_results_copy`.execute(db);
}

/** A passing check of both probes, the status unchanged. */
function passingCheck(
  lease: RecordedCheck<DeviceCheckOutcome>['lease'],
  nowMs: number,
): RecordedCheck<DeviceCheckOutcome> {
  const results = PROBES.map(
    (probe) =>
      ({
        probe,
        checked_at: stamp(nowMs),
        ok: true,
        response_ms: 80 + (lease.id % 40),
        error: null,
        ...(probe === 'public_tls'
          ? { tls_valid_to: stamp(nowMs + 90 * DAY_MS), tls_days_left: 90, tls_error: null }
          : { http_status: 200, location: null }),
      }) as NewDeviceProbeResult,
  );
  return {
    lease,
    outcome: {
      checked_at: stamp(nowMs),
      previous_status: 'up',
      status: 'up',
      consecutive_failures: 0,
      results,
      next_check_at: stamp(nowMs + 60_000),
      events: [],
    },
  };
}

/**
 * The claim-and-record cycle with reports against without, on PostgreSQL: `devices` due devices
 * claimed 100 at a time and recorded with two passing probes, through the store. With reports:
 * the store as it ships (its status trigger), plus the hour's rollup, its cost per check added.
 * Without: the trigger disabled and no rollup, which is the write path without reports. Rounds
 * alternate; the figure is the median ratio of records per second. The hour holds 60 checks
 * of every device, as at 60 s, so that the rollup's cost per device is spread as in service.
 */
async function benchCycle(opened: OpenedKyselyStore, report: Report, devices: number, rounds: number) {
  const { db, store } = opened;
  // One device made through the store, then copied in bulk: every column as the store writes it.
  const { userId, deviceId } = await oneDevice(opened, 'cycle');
  const { rows: columns } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
    where table_name = 'devices' and column_name not in ('id', 'target_value') order by ordinal_position`.execute(db);
  const names = sql.join(columns.map((c) => sql.ref(c.name)));
  await sql`insert into devices (target_value, ${names})
    select 'cycle-' || n || '.example.com', ${names} from devices, generate_series(1, ${devices - 1}) n
    where id = ${deviceId}`.execute(db);
  await ensureDayPartition(db, Date.parse('2026-02-01T00:00:00.000Z'), await dayPartitions(db));
  const triggers = (enable: boolean) =>
    sql`alter table devices ${sql.raw(enable ? 'enable' : 'disable')} trigger devices_status_changed`.execute(db);
  // Every round writes in the same hour, a minute apart, and the hour is rolled up once at the
  // end: its cost per check is then added to the write time of the rounds with reports.
  const hour = Date.parse('2026-02-01T00:00:00.000Z');
  /** `passes` checks of every device, a minute apart from `minute` on. */
  const run = async (withReports: boolean, minute: number, passes: number) => {
    await triggers(withReports);
    let recorded = 0;
    let ms = 0;
    for (let pass = 0; pass < passes; pass++) {
      const at = hour + (minute + pass) * 60_000;
      await sql`update devices set next_check_at = ${stamp(at)}, lease_token = null, lease_owner = null,
        lease_expires_at = null where user_id = ${userId}`.execute(db);
      await sql`vacuum analyze devices`.execute(db);
      const started = performance.now();
      for (;;) {
        const now = stamp(at + 1000);
        const claimed = await store.claimDueDevices({
          owner: 'bench',
          now,
          limit: 100,
          leaseUntil: stamp(at + 50_000),
        });
        if (claimed.length === 0) break;
        const written = await store.recordDeviceChecks(claimed.map((c) => passingCheck(c.lease, at + 1000)));
        recorded += written.filter(Boolean).length;
      }
      ms += performance.now() - started;
    }
    return { recorded, ms };
  };
  // 60 checks of every device in the hour, as at 60 s: the rollup's cost per device is spread as
  // in service.
  const passes = Math.max(1, Math.floor(30 / rounds));
  const rates: { with: { recorded: number; ms: number }; without: { recorded: number; ms: number } }[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0;
    const a = await run(first, 2 * passes * round, passes);
    const b = await run(!first, 2 * passes * round + passes, passes);
    rates.push(first ? { with: a, without: b } : { with: b, without: a });
  }
  await triggers(true);
  await db
    .updateTable('report_progress')
    .set({ rolled_until: stamp(hour) })
    .execute();
  const started = performance.now();
  await store.rollUpResults(stamp(hour + HOUR_MS), 1);
  const checks = rates.reduce((sum, r) => sum + r.with.recorded + r.without.recorded, 0);
  const rollupMsPerCheck = (performance.now() - started) / checks;
  const perSecond = (r: { recorded: number; ms: number }, extraMs = 0) => r.recorded / ((r.ms + extraMs) / 1000);
  const withRates = rates.map((r) => perSecond(r.with, r.with.recorded * rollupMsPerCheck));
  const withoutRates = rates.map((r) => perSecond(r.without));
  const ratios = withRates.map((rate, i) => rate / withoutRates[i]!);
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[values.length >> 1]!;
  report(
    `claim and record, ${devices} devices, 2 probes (PostgreSQL)`,
    `with reports ${Math.round(median(withRates))}/s`,
    `without ${Math.round(median(withoutRates))}/s`,
    `ratio ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
    `rollup ${(rollupMsPerCheck * 1000).toFixed(1)} us per check, ${rounds * passes * 2} checks a device in the hour`,
    'target >= 0.90',
  );
}

export async function benchReports(run: BenchRun): Promise<void> {
  await benchReportQueries(run);
  const { smoke, report } = run;
  const database = await createTestDatabase({ migrated: true });
  if ('skip' in database) {
    report('reports (PostgreSQL)', 'skipped', database.skip ?? '');
    return;
  }
  // Seeding a day at 10,000 devices takes longer than a request may: a long query timeout.
  const opened = await openKyselyStore(database.url, { queryTimeoutMs: 600_000 });
  await migrateToLatest(opened.db);
  try {
    await benchStorage(opened, report, smoke ? 2 : 100);
    await benchExpiry(opened, report, smoke ? 10 : 10_000, smoke ? 3600 : 300, smoke ? 2 : 200);
    await benchCycle(opened, report, smoke ? 200 : 5_000, smoke ? 1 : 6);
  } finally {
    await opened.store.close();
    await database.drop();
  }
}
