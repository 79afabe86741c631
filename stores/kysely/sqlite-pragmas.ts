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
