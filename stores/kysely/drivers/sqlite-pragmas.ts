/** What every SQLite driver's database offers for running a statement without results. */
export interface SqliteHandle {
  exec(sql: string): unknown;
  close(): unknown;
}

/**
 * The settings every SQLite connection of the store runs with, whichever driver opened it:
 * WAL lets readers go on while one process writes; busy_timeout makes a second process wait for
 * the write lock instead of failing at once; SQLite leaves foreign keys off unless asked.
 * The database is closed again when they cannot be applied.
 */
export function configureSqlite<T extends SqliteHandle>(database: T): T {
  try {
    database.exec('pragma journal_mode = WAL');
    database.exec('pragma busy_timeout = 5000');
    database.exec('pragma foreign_keys = ON');
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}

/** The driver-neutral result of opening SQLite: the Kysely dialect and a reader of `data_version`. */
export interface OpenedSqlite<D> {
  dialect: D;
  /**
   * SQLite's `PRAGMA data_version` on the store's connection: it changes whenever another
   * connection (another process on the same file) commits, so cached reads can be checked cheaply.
   */
  dataVersion: () => number;
  /** Where the runtime can tell of the connection's own writes (node:sqlite): Store.watchChanges' source. */
  listenForChanges?: KyselyStoreOptions['listenForChanges'];
}

/** A prepared statement's `get()`: the first row as an object, in all three drivers. */
export interface RowGetter {
  get(): unknown;
}

export function dataVersionReader(prepare: (sql: string) => RowGetter): () => number {
  const statement = prepare('pragma data_version');
  return () => Number((statement.get() as { data_version: number | bigint }).data_version);
}
import type { KyselyStoreOptions } from '../store-context.ts';
