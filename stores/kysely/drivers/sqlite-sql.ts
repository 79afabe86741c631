import { sql } from 'kysely';
import type { StoreSql } from './store-sql.ts';

/** SQLite's spelling of the store's SQL pieces (store-sql.ts). */
export const SQLITE_SQL: StoreSql = {
  parameter: () => '?',
  same: 'is',
  // The transaction holds the database's write lock from its first statement (begin immediate).
  forUpdate: '',
  skipLocked: () => '',
  // Timestamps are stored as their ISO text, which compares in time order.
  stamp: (text) => sql`${text}`,
  ago: (ms) =>
    ms === 0
      ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
      : sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`-${ms / 1000} seconds`})`,
  // node:sqlite on Node 22 refuses to bind a boolean; 1 and 0 bind on every driver.
  flag: (value) => Number(value),
  rowKey: 'rowid',
};
