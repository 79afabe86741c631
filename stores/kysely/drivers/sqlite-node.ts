import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { Dialect, SqliteDatabase, SqliteStatement } from 'kysely';
import { sqliteChangeTriggers } from './sqlite-change-triggers.ts';
import { configureSqlite, dataVersionReader, type OpenedSqlite } from './sqlite-pragmas.ts';
import { cachingStatements } from './sqlite-statement-cache.ts';
import { ImmediateSqliteDialect } from './sqlite-transactions.ts';

/**
 * node:sqlite takes a positional parameter that is an object (a Date, a plain object) as the
 * statement's named parameters, shifting the others silently. The store binds text, numbers,
 * null and bytes only; anything else a host's own query passes is refused here, loudly.
 */
function bindable(parameters: readonly unknown[]): SQLInputValue[] {
  for (const value of parameters) {
    if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
      throw new TypeError(
        `SQLite cannot bind ${Object.prototype.toString.call(value)}: pass text, a number, a bigint, bytes or null`,
      );
    }
  }
  return parameters as SQLInputValue[];
}

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
      all: (parameters) => statement.all(...bindable(parameters)),
      run: (parameters) => statement.run(...bindable(parameters)),
      iterate: (parameters) => statement.iterate(...bindable(parameters)),
    };
  }

  close(): void {
    this.#database.close();
  }
}

let followsSchema: boolean | undefined;

/**
 * Whether this runtime's prepared statements follow a schema change: a `select *` prepared
 * before a column was added returns the new column too. Node 24 re-reads a statement's columns
 * after SQLite recompiles it; Node 22 keeps the ones it read at prepare time, so a statement kept
 * across a migration (by this process or another) would hand back rows of the old shape. Asked of
 * an in-memory database once per process.
 */
function statementsFollowSchema(Database: typeof DatabaseSync): boolean {
  if (followsSchema === undefined) {
    const probe = new Database(':memory:');
    try {
      probe.exec('create table t (a integer); insert into t values (1)');
      const statement = probe.prepare('select * from t');
      statement.all();
      probe.exec('alter table t add column b integer');
      followsSchema = Object.keys(statement.all()[0] ?? {}).length === 2;
    } catch {
      followsSchema = false;
    } finally {
      probe.close();
    }
  }
  return followsSchema;
}

/**
 * A Kysely dialect on a SQLite file (or `:memory:`) through `node:sqlite`, built into Node
 * (22.16 and later: `columns()`) and Deno. Bun has its own driver (sqlite-bun.ts); both set the
 * same pragmas and begin transactions the same way (sqlite-transactions.ts), so the runtimes can
 * share a file. The module is loaded here, when a `sqlite:` URL
 * is opened, so neither a PostgreSQL deployment nor the bundled command's other commands load it
 * (Node 22 prints an ExperimentalWarning when it is first loaded). Statements are kept and reused
 * where the runtime keeps them current (`statementsFollowSchema`).
 */
export async function openNodeSqliteDialect(path: string): Promise<OpenedSqlite<Dialect>> {
  const { DatabaseSync: Database } = await import('node:sqlite');
  const database = configureSqlite(new Database(path, { timeout: 5000, enableForeignKeyConstraints: true }));
  const adapted = new NodeSqliteDatabase(database);
  return {
    dialect: new ImmediateSqliteDialect({
      database: statementsFollowSchema(Database) ? cachingStatements(adapted) : adapted,
    }),
    dataVersion: dataVersionReader((sql) => database.prepare(sql)),
    listenForChanges: sqliteChangeTriggers(database),
  };
}
