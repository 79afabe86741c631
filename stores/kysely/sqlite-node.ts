import { SqliteDialect } from 'kysely';
import type { Dialect } from 'kysely';

/**
 * A Kysely dialect on a SQLite file (or `:memory:`) through better-sqlite3, the driver for Node.
 * Bun (`bun:sqlite`) and Deno (`node:sqlite`) get their own files beside this one.
 *
 * The driver is imported only here and only when called, so a runtime without it (or a
 * PostgreSQL-only deployment) never loads the native module.
 */
export async function openSqliteDialect(path: string): Promise<Dialect> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const database = new BetterSqlite3(path, { timeout: 5000 });
  try {
    // WAL lets readers go on while one process writes; busy_timeout makes a second process
    // wait for the write lock instead of failing at once; SQLite leaves foreign keys off.
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
  } catch (error) {
    database.close();
    throw error;
  }
  return new SqliteDialect({ database });
}
