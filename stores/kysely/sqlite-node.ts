import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { CompiledQuery, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Dialect, Driver, SqliteDatabase, SqliteDialectConfig, SqliteStatement } from 'kysely';
import { configureSqlite, dataVersionReader, type OpenedSqlite } from './sqlite-pragmas.ts';
import { cachingStatements } from './sqlite-statement-cache.ts';

/**
 * `DatabaseSync` in the shape Kysely's SQLite driver expects. Unlike bun:sqlite, a `StatementSync`
 * has no `reader` flag and takes its parameters spread rather than as one array.
 */
export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #database: DatabaseSync;

  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  prepare(sql: string): SqliteStatement {
    const statement: StatementSync = this.#database.prepare(sql);
    return {
      // A statement returns rows exactly when it has result columns: SELECT, and also
      // INSERT/UPDATE/DELETE ... RETURNING, which must go through all() to hand their rows back.
      reader: statement.columns().length > 0,
      all: (parameters) => statement.all(...(parameters as SQLInputValue[])),
      run: (parameters) => statement.run(...(parameters as SQLInputValue[])),
      iterate: (parameters) => statement.iterate(...(parameters as SQLInputValue[])),
    };
  }

  close(): void {
    this.#database.close();
  }
}

/**
 * Kysely's SQLite driver, except that a transaction takes the write lock when it begins. A
 * deferred BEGIN that reads and then writes can fail with SQLITE_BUSY at once, without waiting
 * for busy_timeout, when another process (a worker, Bun, Deno) wrote the shared file meanwhile.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class NodeSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/**
 * A Kysely dialect on a SQLite file (or `:memory:`) through `node:sqlite`, built into Node
 * (22.16 and later: `columns()`) and Deno. Bun has its own driver (sqlite-bun.ts); both set the
 * same pragmas, so the runtimes can share a file. `open-database.ts` imports this file only when
 * a `sqlite:` URL is opened, so a PostgreSQL deployment never loads SQLite.
 */
export function openNodeSqliteDialect(path: string): OpenedSqlite<Dialect> {
  const database = configureSqlite(new DatabaseSync(path, { timeout: 5000, enableForeignKeyConstraints: true }));
  return {
    dialect: new NodeSqliteDialect({ database: cachingStatements(new NodeSqliteDatabase(database)) }),
    dataVersion: dataVersionReader((sql) => database.prepare(sql)),
  };
}
