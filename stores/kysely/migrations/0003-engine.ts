import { sql } from 'kysely';
import type { ColumnDataType, ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { primaryKey, TYPES } from './column-types.ts';
import { addIdGuard } from './id-guard.ts';

/** The lease every engine-checked table carries (docs/engine.md, "Scheduling"). */
const LEASE_COLUMNS = ['lease_owner', 'lease_token', 'lease_expires_at'] as const;

/** One column per ALTER TABLE: SQLite adds no more at once. */
function addColumn(
  db: Kysely<unknown>,
  table: string,
  column: string,
  type: ColumnDataType,
  build: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder = (c) => c,
): Promise<void> {
  return db.schema.alterTable(table).addColumn(column, type, build).execute();
}

/**
 * Migration 0003: what the monitoring engine keeps (docs/engine.md, "Scheduling", "Statuses and
 * transitions", "Events and webhooks"): each record's schedule, lease and last state, the check
 * results, and the outbox of events. Existing enabled records become due at once (the time the
 * migration runs); disabled devices are `paused`.
 */
export function engine(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  const flagTrue = sql.lit(dialect === 'postgres' ? true : 1);
  return {
    async up(db) {
      // Adding columns takes each table's strongest lock, briefly; behind a long transaction it
      // would queue every request behind it. Failing soon, and saying why, is better: start again.
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      const now = new Date().toISOString();

      // A NOT NULL column needs a default for the rows already there. `status` keeps its
      // default: every insert of the store names it anyway.
      const devices = (
        column: string,
        type: ColumnDataType,
        build?: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder,
      ) => addColumn(db, 'devices', column, type, build);
      await devices('check_interval_s', 'integer', (c) => c.notNull().defaultTo(60));
      await devices('status', 'text', (c) => c.notNull().defaultTo('pending'));
      await devices('status_since', t.stamp);
      await devices('last_checked_at', t.stamp);
      await devices('last_results', 'text', (c) => c.notNull().defaultTo('{}'));
      await devices('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0));
      await devices('next_check_at', t.stamp);
      for (const column of LEASE_COLUMNS) {
        await devices(column, column === 'lease_expires_at' ? t.stamp : 'text');
      }
      // A row past 2^53-1 (kept by migration 0002, which guards only new rows) is left alone: on
      // PostgreSQL any update of it would break the id check, and no API call can name it anyway.
      // Without a next check it is never claimed.
      const safe = sql`id <= ${sql.lit(Number.MAX_SAFE_INTEGER)}`;
      await sql`update devices set next_check_at = ${now} where is_enabled = ${flagTrue} and ${safe}`.execute(db);
      await sql`update devices set status = 'paused' where is_enabled <> ${flagTrue} and ${safe}`.execute(db);

      const monitors = (
        column: string,
        type: ColumnDataType,
        build?: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder,
      ) => addColumn(db, 'blacklist_monitors', column, type, build);
      await monitors('check_interval_s', 'integer', (c) => c.notNull().defaultTo(3600));
      await monitors('failed_zones', 'text', (c) => c.notNull().defaultTo('[]'));
      await monitors('next_check_at', t.stamp);
      for (const column of LEASE_COLUMNS) {
        await monitors(column, column === 'lease_expires_at' ? t.stamp : 'text');
      }
      await sql`update blacklist_monitors set next_check_at = ${now} where is_enabled = ${flagTrue} and ${safe}`.execute(
        db,
      );

      // The claim reads the due records in (next_check_at, id) order; disabled ones (null) are
      // left out of the index altogether.
      for (const table of ['devices', 'blacklist_monitors']) {
        await db.schema
          .createIndex(`${table}_due`)
          .on(table)
          .columns(['next_check_at', 'id'])
          .where(sql.ref('next_check_at'), 'is not', null)
          .execute();
      }

      await db.schema
        .createTable('check_results')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        // 'device' | 'blacklist_monitor': one table for both, so no foreign key; the store
        // deletes a record's results with the record.
        .addColumn('resource_kind', 'text', (c) => c.notNull())
        .addColumn('resource_id', t.ref, (c) => c.notNull())
        .addColumn('checked_at', t.stamp, (c) => c.notNull())
        .addColumn('probe', 'text', (c) => c.notNull())
        .addColumn('ok', t.flag, (c) => c.notNull())
        .addColumn('response_ms', 'integer')
        .addColumn('error', 'text')
        .addColumn('fields', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      // A record's results page newest first; the retention deletes by age.
      await db.schema
        .createIndex('check_results_resource')
        .on('check_results')
        .columns(['resource_kind', 'resource_id', 'id'])
        .execute();
      await db.schema.createIndex('check_results_checked_at').on('check_results').columns(['checked_at']).execute();
      await addIdGuard(db, dialect, 'check_results');

      // The outbox. Deliveries (a later migration) refer to events by id; an event outlives the
      // record it is about, so a deleted device's last "down" is still announced.
      await db.schema
        .createTable('events')
        .addColumn('id', t.id, (c) => primaryKey(dialect, c))
        .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('resource_kind', 'text', (c) => c.notNull())
        .addColumn('resource_id', t.ref, (c) => c.notNull())
        .addColumn('created_at', t.stamp, (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await addIdGuard(db, dialect, 'events');
    },

    async down() {
      // Forward only: dropping the engine's columns would throw away every record's state.
      throw new Error('migration 0003_engine cannot be undone');
    },
  };
}
