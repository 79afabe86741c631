import { sql } from 'kysely';
import type { ColumnDataType, ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { StoreDialect } from '../schema.ts';
import { TYPES } from './column-types.ts';

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
 * Migration 0008: what a blacklist monitor's listings mean and which zones it asks
 * (docs/engine.md, "Blacklist monitors (DNSBL)"), and the on-demand checks of both kinds
 * ("Checks on demand"). Existing monitors ask every zone, do not count policy listings, and have
 * no listing details until their next check fills them in. Forward only.
 */
export function dnsblListings(dialect: StoreDialect): Migration {
  const t = TYPES[dialect];
  return {
    async up(db) {
      // As in 0003: fail soon behind a long transaction rather than queue every request behind it.
      if (dialect === 'postgres') await sql`set local lock_timeout = '2s'`.execute(db);
      await addColumn(db, 'blacklist_monitors', 'zones', 'text');
      await addColumn(db, 'blacklist_monitors', 'count_policy_listings', t.flag, (c) =>
        c.notNull().defaultTo(sql.lit(dialect === 'postgres' ? false : 0)),
      );
      await addColumn(db, 'blacklist_monitors', 'listings', 'text', (c) => c.notNull().defaultTo('[]'));
      await addColumn(db, 'blacklist_monitors', 'rdns', 'text');
      await addColumn(db, 'blacklist_monitors', 'check_requested_at', t.stamp);
      await addColumn(db, 'devices', 'check_requested_at', t.stamp);
      if (dialect === 'postgres') {
        // The change marker (0005) must move when a list shows something new. Its trigger names the
        // columns of its time; a second trigger names these, so the first is left as it is.
        // check_requested_at is not here: no answer shows it.
        await sql`create trigger blacklist_monitors_count_change_listings
          after update of zones, count_policy_listings, listings, rdns
          on blacklist_monitors for each statement execute function count_change()`.execute(db);
      }
    },
    async down() {
      throw new Error('migration 0008_dnsbl_listings cannot be undone');
    },
  };
}
