import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { rewriteCountTrigger } from './change-trigger.ts';
import { TYPES } from './column-types.ts';

/**
 * Migration 0010: workers' heartbeats by location (docs/engine.md, "Locations"), and claims that
 * cost the same however many leases are held ("Scheduling"). A claim now moves a record's due
 * time to its lease's expiry; a record leased when the migration runs gets the same, so it is not
 * claimed again before its lease runs out and is due again when it does. Every other due time and
 * status is kept as it was.
 *
 * On PostgreSQL the change marker's triggers (migration 0005) stop counting `next_check_at`, which
 * no answer shows: a claim now writes it, and a claim must not make every list read afresh. Each
 * trigger is made again on the columns it has now, less that one, so columns an earlier migration
 * added to it stay, and the device columns this migration adds are counted.
 *
 * Devices gain `check_locations` and `quorum` (docs/contract.md §6.1), null for every existing
 * device: checked from any one location, as before; `quorum_state` and `location_states` (the
 * record's `locations`), written by the quorum decision. A device with `check_locations` has one
 * row per location in `device_location_checks`, its schedule and lease, and no schedule of its
 * own. Results carry the `check_location` that produced them.
 */
/** Every event type before this migration, and after it, in the order webhooks store them. */
const EVERY_BEFORE = [
  'device.down',
  'device.up',
  'device.tls_expiring',
  'blacklist.listed',
  'blacklist.delisted',
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
];
const EVERY_AFTER = [...EVERY_BEFORE.slice(0, 3), 'device.location_failing', ...EVERY_BEFORE.slice(3)];

export function locations(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      // A webhook that receives every event type receives device.location_failing too (one
      // created without `events` holds them all), in the order webhooks store the types.
      await sql`update webhooks set events = ${JSON.stringify(EVERY_AFTER)}
        where events = ${JSON.stringify(EVERY_BEFORE)}`.execute(db);
      for (const table of ['devices', 'blacklist_monitors']) {
        await sql`update ${sql.table(table)} set next_check_at = lease_expires_at
          where lease_expires_at is not null and next_check_at is not null and next_check_at < lease_expires_at`.execute(
          db,
        );
      }
      // What a device asks of locations: null is any one location (docs/contract.md §6.1).
      await db.schema.alterTable('devices').addColumn('check_locations', 'text').execute();
      await db.schema.alterTable('devices').addColumn('quorum', 'integer').execute();
      await db.schema.alterTable('devices').addColumn('quorum_state', 'text').execute();
      await db.schema.alterTable('devices').addColumn('location_states', 'text').execute();
      await db.schema.alterTable('check_results').addColumn('check_location', 'text').execute();
      // One schedule and lease per (device, location), claimed by location, earliest due first.
      await db.schema
        .createTable('device_location_checks')
        .addColumn('device_id', t.ref, (c) => c.notNull().references('devices.id').onDelete('cascade'))
        .addColumn('location', 'text', (c) => c.notNull())
        .addColumn('next_check_at', t.stamp)
        .addColumn('lease_owner', 'text')
        .addColumn('lease_token', 'text')
        .addColumn('lease_expires_at', t.stamp)
        .addColumn('last_ok', t.flag)
        .addColumn('last_checked_at', t.stamp)
        .addColumn('response_ms', 'integer')
        .addColumn('error', 'text')
        .addColumn('failing_since', t.stamp)
        .addColumn('announced', t.flag, (c) => c.notNull())
        .addPrimaryKeyConstraint('device_location_checks_pkey', ['device_id', 'location'])
        .execute();
      await db.schema
        .createIndex('device_location_checks_due')
        .on('device_location_checks')
        .columns(['location', 'next_check_at'])
        .execute();
      if (dialect === 'postgres') {
        await rewriteCountTrigger(db, 'devices', ['check_locations', 'quorum', 'quorum_state', 'location_states']);
        await rewriteCountTrigger(db, 'blacklist_monitors', []);
      }

      // Worker heartbeats: one row per worker, its times by the database's clock.
      await db.schema
        .createTable('worker_heartbeats')
        .addColumn('worker_id', 'text', (c) => c.primaryKey())
        .addColumn('location', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('started_at', t.stamp, (c) => c.notNull())
        .addColumn('last_seen_at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('worker_heartbeats_last_seen')
        .on('worker_heartbeats')
        .columns(['last_seen_at'])
        .execute();
    },

    async down() {
      throw new Error('migration 0010_locations cannot be undone');
    },
  };
}
