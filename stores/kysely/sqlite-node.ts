import { SqliteDialect } from 'kysely';
import type { Dialect } from 'kysely';
import { configureSqlite, dataVersionReader, type OpenedSqlite } from './sqlite-pragmas.ts';
import { cachingStatements } from './sqlite-statement-cache.ts';

/**
 * A Kysely dialect on a SQLite file (or `:memory:`) through better-sqlite3, the driver for Node.
 * Bun (`bun:sqlite`) and Deno (`node:sqlite`) get their own files beside this one.
 *
 * The driver is imported only here and only when called, so a runtime without it (or a
 * PostgreSQL-only deployment) never loads the native module.
 */
export async function openSqliteDialect(path: string): Promise<OpenedSqlite<Dialect>> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const database = configureSqlite(new BetterSqlite3(path, { timeout: 5000 }));
  return { dialect: new SqliteDialect({ database: cachingStatements(database) }), dataVersion: dataVersionReader((sql) => database.prepare(sql)) };
}
