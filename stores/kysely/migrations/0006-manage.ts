import { sql } from 'kysely';
import type { Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';

/** Every event type before this migration, and after it, in the order webhooks store them. */
const BEFORE = ['device.down', 'device.up', 'device.tls_expiring', 'blacklist.listed', 'blacklist.delisted'];
const AFTER = [
  ...BEFORE,
  'device.paused',
  'device.resumed',
  'blacklist_monitor.paused',
  'blacklist_monitor.resumed',
  'device.maintenance_started',
  'device.maintenance_ended',
];

/**
 * Maintenance windows (docs/contract.md §6.10, docs/engine.md, "Maintenance windows"); forward
 * only. It also gives the webhooks that receive every event type the types this release adds.
 * A window names its records by id in JSON lists rather than by foreign keys: a deleted
 * device simply stops being covered, and the engine reads every window once per claim cycle.
 */
export function manage(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      await db.schema
        .createTable('maintenance_windows')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('starts_at', t.stamp)
        .addColumn('ends_at', t.stamp)
        // JSON {days, start, duration_s, time_zone}, or null for a one-off window.
        .addColumn('repeat', 'text')
        .addColumn('device_ids', 'text', (c) => c.notNull())
        .addColumn('all_devices', t.flag, (c) => c.notNull())
        .addColumn('blacklist_monitor_ids', 'text', (c) => c.notNull())
        .addColumn('all_blacklist_monitors', t.flag, (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('maintenance_windows_user_id_id')
        .on('maintenance_windows')
        .columns(['user_id', 'id'])
        .execute();
      await addIdGuard(db, dialect, 'maintenance_windows');
      // The engine looks for devices in maintenance at every claim cycle: few, found by this index.
      await db.schema
        .createIndex('devices_in_maintenance')
        .on('devices')
        .columns(['id'])
        .where(sql.ref('status'), '=', 'maintenance')
        .execute();
      // A blacklist monitor's part in maintenance (docs/engine.md, "Maintenance windows").
      await db.schema.alterTable('blacklist_monitors').addColumn('maintenance_since', t.stamp).execute();
      await db.schema.alterTable('blacklist_monitors').addColumn('announced_listed_on', 'text').execute();
      await db.schema
        .createIndex('blacklist_monitors_in_maintenance')
        .on('blacklist_monitors')
        .columns(['id'])
        .where(sql.ref('maintenance_since'), 'is not', null)
        .execute();
      // A webhook that receives every event type receives the types added here too (a webhook
      // created without `events` holds them all).
      await sql`update webhooks set events = ${JSON.stringify(AFTER)}
        where events = ${JSON.stringify(BEFORE)}`.execute(db);
    },

    async down() {
      throw new Error('migration 0006_manage cannot be undone');
    },
  };
}
