import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import { DAY_MS, dayStart, hourStart } from '../../../core/internal.ts';
import type { StoreDialect } from '../schema.ts';
import { DAYS_AHEAD, ensureDayPartition } from '../reports/result-partitions.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';
import { createReportTriggers } from './report-triggers.ts';

/**
 * Migration 0011: reports (docs/engine.md, "Reports"); forward only.
 *
 * - `status_changes`, `incidents`, `listing_periods`, kept by triggers (report-triggers.ts). An
 *   existing database starts its timeline now: one change (none → its status) per device at the
 *   time of the migration, an open incident for each device that is `down` (since its
 *   `status_since`, cause unknown), an open period for each listing a monitor holds.
 * - `device_rollups_hourly` and `device_rollups_daily`, and `report_progress`, which starts the
 *   rollups at the hour of the migration: raw results of earlier hours are not rolled up.
 * - On PostgreSQL `check_results` becomes partitioned by UTC day. Its rows move into the new
 *   table with their ids; ids continue from the old table's sequence. The primary key is
 *   (id, checked_at), as a partitioned table's must include the partition key.
 */
export function reports(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      const now = new Date().toISOString();

      await db.schema
        .createTable('status_changes')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('device_id', t.ref, (c) => c.notNull().references('devices.id').onDelete('cascade'))
        .addColumn('from_status', 'text')
        .addColumn('to_status', 'text', (c) => c.notNull())
        .addColumn('at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('status_changes_device_at')
        .on('status_changes')
        .columns(['device_id', 'at'])
        .execute();
      // Retention finds the old changes by time.
      await db.schema.createIndex('status_changes_at').on('status_changes').columns(['at']).execute();

      await db.schema
        .createTable('incidents')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('device_id', t.ref, (c) => c.notNull().references('devices.id').onDelete('cascade'))
        .addColumn('started_at', t.stamp, (c) => c.notNull())
        .addColumn('resolved_at', t.stamp)
        .addColumn('cause', 'text')
        .addColumn('locations', 'text')
        .execute();
      await db.schema.createIndex('incidents_user_id').on('incidents').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('incidents_device_id').on('incidents').columns(['device_id', 'id']).execute();
      await addIdGuard(db, dialect, 'incidents');

      await db.schema
        .createTable('listing_periods')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('monitor_id', t.ref, (c) => c.notNull().references('blacklist_monitors.id').onDelete('cascade'))
        .addColumn('zone', 'text', (c) => c.notNull())
        .addColumn('answer', 'text', (c) => c.notNull())
        .addColumn('listed_at', t.stamp, (c) => c.notNull())
        .addColumn('delisted_at', t.stamp)
        .execute();
      await db.schema
        .createIndex('listing_periods_monitor')
        .on('listing_periods')
        .columns(['monitor_id', 'listed_at'])
        .execute();

      for (const table of ['device_rollups_hourly', 'device_rollups_daily']) {
        await db.schema
          .createTable(table)
          .addColumn('device_id', t.ref, (c) => c.notNull().references('devices.id').onDelete('cascade'))
          .addColumn('probe', 'text', (c) => c.notNull())
          .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('start', t.stamp, (c) => c.notNull())
          .addColumn('checks', 'integer', (c) => c.notNull())
          .addColumn('failures', 'integer', (c) => c.notNull())
          .addColumn('timed', 'integer', (c) => c.notNull())
          .addColumn('sum_ms', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
          .addColumn('min_ms', 'integer')
          .addColumn('max_ms', 'integer')
          .addColumn('p95_ms', 'integer')
          .addColumn('histogram', 'text', (c) => c.notNull())
          // A device's series reads its rows by start: the key leads with (device_id, start).
          .addPrimaryKeyConstraint(`${table}_pkey`, ['device_id', 'start', 'probe', 'location'])
          .execute();
        await db.schema.createIndex(`${table}_start`).on(table).columns(['start']).execute();
      }
      await db.schema
        .createTable('report_progress')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('rolled_until', t.stamp, (c) => c.notNull())
        .execute();
      await db
        .insertInto('report_progress' as never)
        .values({ name: 'rollups', rolled_until: hourStart(now) } as never)
        .execute();

      // The timeline starts now for every device there is.
      await sql`insert into status_changes (device_id, from_status, to_status, at)
        select id, null, status, ${now} from devices order by id`.execute(db);
      await sql`insert into incidents (user_id, device_id, started_at, cause, locations)
        select user_id, id, coalesce(status_since, ${now}), null, null from devices
        where status = 'down' order by id`.execute(db);
      await seedListingPeriods(db, dialect);
      await createReportTriggers(db, dialect);
      if (dialect === 'postgres') await partitionResults(db, Date.parse(dayStart(now)));
    },

    async down() {
      throw new Error('migration 0011_reports cannot be undone');
    },
  };
}

/** An open listing period for every listing a monitor holds now. */
async function seedListingPeriods(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`insert into listing_periods (user_id, monitor_id, zone, answer, listed_at)
      select m.user_id, m.id, l ->> 'zone', coalesce(l ->> 'answer', ''), cast(l ->> 'since' as timestamptz)
      from blacklist_monitors m cross join lateral jsonb_array_elements(cast(m.listings as jsonb)) l
      where l ->> 'zone' is not null and l ->> 'since' is not null
      order by m.id`.execute(db);
  } else {
    await sql`insert into listing_periods (user_id, monitor_id, zone, answer, listed_at)
      select m.user_id, m.id, json_extract(l.value, '$.zone'), coalesce(json_extract(l.value, '$.answer'), ''),
        json_extract(l.value, '$.since')
      from blacklist_monitors m, json_each(m.listings) l
      where json_extract(l.value, '$.zone') is not null and json_extract(l.value, '$.since') is not null
      order by m.id`.execute(db);
  }
}

/**
 * Replaces check_results by a table partitioned by UTC day holding the same rows (PostgreSQL).
 * Ids keep their values; new ones continue from the old identity's sequence. Indexes: a record's
 * results page by (resource_kind, resource_id, id), which also finds a device's current hours
 * within the one or two partitions a time range prunes to; the rollups scan an hour by
 * `checked_at`, for which a BRIN index, cheap to keep up on rows written in time order, stands in
 * for the B-tree the unpartitioned table had.
 */
async function partitionResults(db: Kysely<unknown>, today: number): Promise<void> {
  const max = sql.lit(Number.MAX_SAFE_INTEGER);
  await sql`alter table check_results rename to check_results_unpartitioned`.execute(db);
  await sql`alter table check_results_unpartitioned drop constraint check_results_id_safe`.execute(db);
  await sql`alter index check_results_resource rename to check_results_unpartitioned_resource`.execute(db);
  await sql`alter index check_results_checked_at rename to check_results_unpartitioned_checked_at`.execute(db);
  await sql`create sequence check_result_ids as bigint`.execute(db);
  await sql`select setval('check_result_ids', greatest(
      coalesce((select max(id) from check_results_unpartitioned), 0),
      (select last_value from ${sql.raw(await identitySequence(db))})), true)`.execute(db);
  await sql`create table check_results (
      id bigint not null default nextval('check_result_ids'),
      resource_kind text not null,
      resource_id bigint not null,
      checked_at timestamptz not null,
      probe text not null,
      ok boolean not null,
      response_ms integer,
      error text,
      fields text not null default '{}',
      check_id bigint,
      check_location text,
      constraint check_results_pk primary key (id, checked_at),
      constraint check_results_id_safe check (id <= ${max})
    ) partition by range (checked_at)`.execute(db);
  await sql`alter sequence check_result_ids owned by check_results.id`.execute(db);
  await sql`create table check_results_default partition of check_results default`.execute(db);
  const { rows } = await sql<{ day: string }>`
    select distinct to_char(checked_at at time zone 'UTC', 'YYYY-MM-DD') as day
    from check_results_unpartitioned`.execute(db);
  const existing = new Map<number, string>();
  const days = new Set(rows.map((row) => Date.parse(`${row.day}T00:00:00Z`)));
  for (let i = 0; i <= DAYS_AHEAD; i++) days.add(today + i * DAY_MS);
  for (const day of [...days].sort((a, b) => a - b)) await ensureDayPartition(db, day, existing);
  await sql`insert into check_results
      (id, resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields, check_id, check_location)
    select id, resource_kind, resource_id, checked_at, probe, ok, response_ms, error, fields, check_id, check_location
    from check_results_unpartitioned`.execute(db);
  await sql`drop table check_results_unpartitioned`.execute(db);
  await sql`create index check_results_resource on check_results (resource_kind, resource_id, id)`.execute(db);
  await sql`create index check_results_checked_at on check_results using brin (checked_at)`.execute(db);
}

/** The name of the old table's id sequence. */
async function identitySequence(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ name: string }>`
    select pg_get_serial_sequence('check_results_unpartitioned', 'id') as name`.execute(db);
  const name = rows[0]?.name;
  if (name === undefined || name === null) throw new Error('check_results has no id sequence');
  return name;
}
