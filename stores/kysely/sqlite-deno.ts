import { CompiledQuery, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Dialect, Driver, SqliteDatabase, SqliteDialectConfig, SqliteStatement } from 'kysely';
import { configureSqlite, dataVersionReader, type OpenedSqlite } from './sqlite-pragmas.ts';

/**
 * What this file uses of `node:sqlite`, typed here: the package's @types/node (20) predates it.
 * Unlike better-sqlite3 and bun:sqlite, a `StatementSync` has no `reader` flag and takes its
 * parameters spread, not as one array.
 */
interface StatementSync {
  columns(): unknown[];
  get(...parameters: unknown[]): unknown;
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  close(): void;
}

interface NodeSqliteModule {
  DatabaseSync: new (path: string, options: { timeout: number; enableForeignKeyConstraints: boolean }) => DatabaseSync;
}

/** `DatabaseSync` in the shape Kysely's SQLite driver expects. */
class NodeSqliteDatabase implements SqliteDatabase {
  constructor(private readonly database: DatabaseSync) {}

  prepare(sql: string): SqliteStatement {
    const statement = this.database.prepare(sql);
    return {
      // A statement returns rows exactly when it has result columns: SELECT, and also
      // INSERT/UPDATE/DELETE ... RETURNING, which must go through all() to hand their rows back.
      reader: statement.columns().length > 0,
      all: (parameters) => statement.all(...parameters),
      run: (parameters) => statement.run(...parameters),
      iterate: (parameters) => statement.iterate(...parameters),
    };
  }

  close(): void {
    this.database.close();
  }
}

/**
 * Kysely's SQLite driver, except that a transaction takes the write lock when it begins. A
 * deferred BEGIN that reads and then writes can fail with SQLITE_BUSY at once, without waiting
 * for busy_timeout, when another process (Node, Bun, this one) wrote the shared file meanwhile.
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
 * A Kysely dialect on a SQLite file (or `:memory:`) through `node:sqlite`, the driver for Deno
 * (Node 22.16+, which has `columns()`, could use it too). Same pragmas as the better-sqlite3 one
 * (sqlite-node.ts), so the three runtimes can share a file.
 */
export async function openNodeSqliteDialect(path: string): Promise<OpenedSqlite<Dialect>> {
  // A specifier in a variable: tsc (with Node 20 types) would not resolve it, and the module is
  // only loaded when this runtime's SQLite is asked for.
  const specifier = 'node:sqlite';
  const { DatabaseSync } = (await import(specifier)) as NodeSqliteModule;
  const database = configureSqlite(new DatabaseSync(path, { timeout: 5000, enableForeignKeyConstraints: true }));
  return { dialect: new NodeSqliteDialect({ database: new NodeSqliteDatabase(database) }), dataVersion: dataVersionReader((sql) => database.prepare(sql)) };
}
