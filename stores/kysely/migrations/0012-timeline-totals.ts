import { sql } from 'kysely';
import type { Migration } from 'kysely';
import { DEVICE_STATUSES } from '../../../core/index.ts';
import type { StoreDialect } from '../schema.ts';
import { TYPES } from './column-types.ts';
import { createTimelineTotalsTrigger, fillTimelineTotals, totalColumn } from './timeline-totals.ts';

/**
 * Migration 0012: running totals on the status timeline (timeline-totals.ts, docs/reports.md,
 * "Availability"); forward only. Every change gets `prev_at` and `previous_ms` (the change it
 * follows, and how long that status lasted), a running total per status and `total_downs`, all
 * filled from the timeline already kept; the status trigger writes them from then on. A partial
 * index holds the ends of `down` periods by length, so the longest incident in a range is found
 * among the first few entries read, and from the index alone. On PostgreSQL, rollups and report
 * retention move the change marker, under which report answers are kept.
 */
export function timelineTotals(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  const count = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db) {
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await db.schema.alterTable('status_changes').addColumn('prev_at', t.stamp).execute();
      await db.schema.alterTable('status_changes').addColumn('previous_ms', count).execute();
      for (const column of [...DEVICE_STATUSES.map(totalColumn), 'total_downs'])
        await db.schema
          .alterTable('status_changes')
          .addColumn(column, count, (c) => c.notNull().defaultTo(0))
          .execute();
      await fillTimelineTotals(db, dialect);
      await db.schema
        .createIndex('status_changes_down_ends')
        .on('status_changes')
        .columns(['device_id', 'previous_ms', 'at', 'prev_at'])
        .where(sql.ref('from_status'), '=', 'down')
        .execute();
      await createTimelineTotalsTrigger(db, dialect);
      if (dialect === 'postgres') {
        // Report answers are kept under the change marker (migration 0005) as lists are: rollups
        // and retention change what they show without touching a device, so they move it too.
        for (const table of ['status_changes', 'incidents', 'listing_periods'])
          await sql`create trigger ${sql.id(`${table}_count_change`)} after delete on ${sql.table(table)}
            for each statement execute function count_change()`.execute(db);
        for (const table of ['device_rollups_hourly', 'device_rollups_daily'])
          await sql`create trigger ${sql.id(`${table}_count_change`)} after insert or delete on ${sql.table(table)}
            for each statement execute function count_change()`.execute(db);
      }
    },

    async down() {
      throw new Error('migration 0012_timeline_totals cannot be undone');
    },
  };
}
