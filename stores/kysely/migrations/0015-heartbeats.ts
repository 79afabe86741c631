import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';
import { createTimelineTotalsTrigger } from './timeline-totals.ts';

/** The states of a heartbeat's timeline (core/heartbeats/heartbeat-state.ts), one running total each. */
export const HEARTBEAT_TIMELINE_COLUMNS = ['new', 'up', 'started', 'down', 'paused', 'maintenance'].map(
  (state) => `total_${state}_ms`,
);

/**
 * Every event type before this migration, in the order webhooks store them: migration 0010's, with
 * `channel.disabled` that 0014 appended; after it, in EVENT_TYPES's order (core/records/event-types.ts).
 */
const EVERY_BEFORE_0014 = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'device.location_failing',
  'blacklist.listed',
  'blacklist.delisted',
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
];
const EVERY_BEFORE = [...EVERY_BEFORE_0014, 'channel.disabled'];
const EVERY_AFTER = [...EVERY_BEFORE_0014, 'heartbeat.down', 'heartbeat.up', 'channel.disabled'];

/**
 * Migration 0015: heartbeats (docs/heartbeats.md); forward only.
 *
 * - `heartbeats`: the records, their state (the last success, the open runs, why it is down, the
 *   last body, the window covering it), the ping token (unique), and the engine's columns: when
 *   its lateness is to be judged (`late_check_at`, null while nothing is awaited) under a partial
 *   index the claim reads in order, and the lease.
 * - `heartbeat_pings`: the pings, paged by (heartbeat_id, id), expired by `received_at`.
 * - `heartbeat_status_changes`: each heartbeat's timeline with running totals per state, as
 *   `status_changes` keeps devices' (migration 0012), written by the store in the transaction of
 *   the change.
 * - `incidents` gains `heartbeat_id`; `device_id` becomes nullable (exactly one of the two is set).
 *   SQLite cannot drop a NOT NULL, so there the table is made again with its rows and ids, and the
 *   device status triggers that write it are made again with it.
 * - `maintenance_windows` gains `heartbeat_ids` and `all_heartbeats`.
 * - A webhook that receives every event type receives `heartbeat.down` and `heartbeat.up` too.
 */
export function heartbeats(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await sql`update webhooks set events = ${JSON.stringify(EVERY_AFTER)}
        where events = ${JSON.stringify(EVERY_BEFORE)}`.execute(db);
      await db.schema
        .createTable('heartbeats')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text')
        .addColumn('period_s', 'integer')
        .addColumn('schedule', 'text')
        .addColumn('time_zone', 'text', (c) => c.notNull())
        .addColumn('grace_s', 'integer', (c) => c.notNull())
        .addColumn('max_runtime_s', 'integer')
        .addColumn('min_runtime_s', 'integer')
        .addColumn('is_enabled', t.flag, (c) => c.notNull())
        .addColumn('ping_token', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_since', t.stamp, (c) => c.notNull())
        .addColumn('last_ping_at', t.stamp)
        .addColumn('last_duration_ms', count)
        .addColumn('next_due_at', t.stamp)
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('last_success_at', t.stamp)
        .addColumn('runs', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('down_cause', 'text')
        .addColumn('last_body', 'text')
        .addColumn('maintenance_since', t.stamp)
        .addColumn('late_check_at', t.stamp)
        .addColumn('lease_owner', 'text')
        .addColumn('lease_token', 'text')
        .addColumn('lease_expires_at', t.stamp)
        .addColumn('ping_count', count, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('heartbeats_user_id').on('heartbeats').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('heartbeats_ping_token').on('heartbeats').column('ping_token').unique().execute();
      // The claim of late heartbeats reads this index from its start (docs/heartbeats.md, "Lateness"):
      // only heartbeats awaiting something are in it.
      await db.schema
        .createIndex('heartbeats_late_check')
        .on('heartbeats')
        .columns(['late_check_at', 'id'])
        .where(sql.ref('late_check_at'), 'is not', null)
        .execute();
      await addIdGuard(db, dialect, 'heartbeats');

      await db.schema
        .createTable('heartbeat_pings')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('heartbeat_id', t.ref, (c) => c.notNull().references('heartbeats.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('exit_status', 'integer')
        .addColumn('received_at', t.stamp, (c) => c.notNull())
        .addColumn('duration_ms', count)
        .addColumn('remote_addr', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('body', 'text')
        .addColumn('rid', 'text')
        .execute();
      await db.schema
        .createIndex('heartbeat_pings_heartbeat')
        .on('heartbeat_pings')
        .columns(['heartbeat_id', 'id'])
        .execute();
      await db.schema.createIndex('heartbeat_pings_received_at').on('heartbeat_pings').column('received_at').execute();
      await addIdGuard(db, dialect, 'heartbeat_pings');

      let changes = db.schema
        .createTable('heartbeat_status_changes')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('heartbeat_id', t.ref, (c) => c.notNull().references('heartbeats.id').onDelete('cascade'))
        .addColumn('from_status', 'text')
        .addColumn('to_status', 'text', (c) => c.notNull())
        .addColumn('at', t.stamp, (c) => c.notNull())
        .addColumn('prev_at', t.stamp)
        .addColumn('previous_ms', count);
      for (const column of [...HEARTBEAT_TIMELINE_COLUMNS, 'total_downs'])
        changes = changes.addColumn(column, count, (c) => c.notNull().defaultTo(0));
      await changes.execute();
      await db.schema
        .createIndex('heartbeat_status_changes_heartbeat_at')
        .on('heartbeat_status_changes')
        .columns(['heartbeat_id', 'at'])
        .execute();
      await db.schema.createIndex('heartbeat_status_changes_at').on('heartbeat_status_changes').column('at').execute();
      await db.schema
        .createIndex('heartbeat_status_changes_down_ends')
        .on('heartbeat_status_changes')
        .columns(['heartbeat_id', 'previous_ms', 'at', 'prev_at'])
        .where(sql.ref('from_status'), '=', 'down')
        .execute();

      if (dialect === 'postgres') {
        await sql`alter table incidents alter column device_id drop not null`.execute(db);
        await sql`alter table incidents add column heartbeat_id bigint references heartbeats (id) on delete cascade`.execute(
          db,
        );
        await sql`alter table incidents add constraint incidents_one_record
          check ((device_id is null) <> (heartbeat_id is null))`.execute(db);
        // Heartbeats' incidents are written by the store, not by a devices trigger that counts the
        // change: report answers kept under the change marker must see them (migration 0012).
        await sql`create trigger incidents_count_write after insert or update on incidents
          for each statement execute function count_change()`.execute(db);
        await sql`create trigger heartbeat_status_changes_count_change after insert or delete on heartbeat_status_changes
          for each statement execute function count_change()`.execute(db);
      } else {
        await remakeSqliteIncidents(db);
      }
      await db.schema
        .createIndex('incidents_heartbeat_id')
        .on('incidents')
        .columns(['heartbeat_id', 'id'])
        .where(sql.ref('heartbeat_id'), 'is not', null)
        .execute();

      await db.schema
        .alterTable('maintenance_windows')
        .addColumn('heartbeat_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema
        .alterTable('maintenance_windows')
        .addColumn('all_heartbeats', t.flag, (c) => c.notNull().defaultTo(dialect === 'postgres' ? sql`false` : sql`0`))
        .execute();
    },

    async down() {
      throw new Error('migration 0015_heartbeats cannot be undone');
    },
  };
}

/**
 * SQLite: `incidents` made again with `device_id` nullable and `heartbeat_id`, its rows and ids
 * kept (AUTOINCREMENT's counter too). The device status triggers insert into it, so they are
 * dropped first and made again after (createTimelineTotalsTrigger drops and makes them).
 */
async function remakeSqliteIncidents(db: Kysely<unknown>): Promise<void> {
  await sql`alter table incidents rename to incidents_before_0015`.execute(db);
  await sql`create table incidents (
      id integer primary key autoincrement,
      user_id integer not null references users (id) on delete cascade,
      device_id integer references devices (id) on delete cascade,
      heartbeat_id integer references heartbeats (id) on delete cascade,
      started_at text not null,
      resolved_at text,
      cause text,
      locations text,
      check ((device_id is null) <> (heartbeat_id is null))
    )`.execute(db);
  await sql`insert into incidents (id, user_id, device_id, started_at, resolved_at, cause, locations)
    select id, user_id, device_id, started_at, resolved_at, cause, locations from incidents_before_0015
    order by id`.execute(db);
  // AUTOINCREMENT never hands out an id it gave before, the ids of deleted incidents included.
  await sql`insert into sqlite_sequence (name, seq) select 'incidents', 0
    where not exists (select 1 from sqlite_sequence where name = 'incidents')`.execute(db);
  await sql`update sqlite_sequence set seq = max(seq,
      coalesce((select seq from sqlite_sequence where name = 'incidents_before_0015'), 0))
    where name = 'incidents'`.execute(db);
  await sql`drop table incidents_before_0015`.execute(db);
  await sql`create index incidents_user_id on incidents (user_id, id)`.execute(db);
  await sql`create index incidents_device_id on incidents (device_id, id)`.execute(db);
  await addIdGuard(db, 'sqlite', 'incidents');
  // The renaming pointed the device triggers at the old table: they are made again on the new one.
  await createTimelineTotalsTrigger(db, 'sqlite');
}
