import type { Dialect, SqliteDatabase } from 'kysely';
import { configureSqlite, dataVersionReader, type OpenedSqlite, type RowGetter } from './sqlite-pragmas.ts';
import { ImmediateSqliteDialect } from './sqlite-transactions.ts';

/**
 * What this file uses of `bun:sqlite`, typed here so that the package needs no Bun types.
 * Bun's `Statement` already has Kysely's shape: a `reader` flag, and `all`/`run`/`iterate` that
 * take the parameters as one array, so the `Database` itself is handed to the dialect.
 */
interface BunDatabase extends SqliteDatabase {
  exec(sql: string): void;
}

interface BunSqliteModule {
  Database: new (path: string, options: { create: boolean; readwrite: boolean }) => BunDatabase;
}

/**
 * A Kysely dialect on a SQLite file (or `:memory:`) through `bun:sqlite`, the driver for Bun.
 * Same pragmas and the same transactions, which take the write lock as they begin
 * (sqlite-transactions.ts), as the node:sqlite one (sqlite-node.ts), so Node, Bun and Deno can
 * share a file.
 */
export async function openBunSqliteDialect(path: string): Promise<OpenedSqlite<Dialect>> {
  // A specifier in a variable: neither tsc nor a bundler tries to resolve a module only Bun has,
  // and only Bun ever reaches this line.
  const specifier = 'bun:sqlite';
  const { Database } = (await import(specifier)) as BunSqliteModule;
  const database = configureSqlite(new Database(path, { create: true, readwrite: true }));
  // bun:sqlite statements have get() as well; Kysely's statement type only names what it uses.
  return {
    dialect: new ImmediateSqliteDialect({ database }),
    dataVersion: dataVersionReader((sql) => database.prepare(sql) as unknown as RowGetter),
  };
}
