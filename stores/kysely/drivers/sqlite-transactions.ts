import { CompiledQuery, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite driver, except that a transaction takes the database's write lock as it begins
 * (`begin immediate`; Kysely's own begins deferred). The store's transactions read and then write
 * (a claim reads the due rows and leases them, a change reads its record and writes it), and rely
 * on no other process writing in between. A deferred transaction only reads at first, so another
 * process may write meanwhile, and its own write is then refused with SQLITE_BUSY at once, without
 * waiting for busy_timeout. Begun immediate, it waits for the lock (up to busy_timeout) before it
 * reads, and every other writer waits for it.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's SQLite dialect with ImmediateSqliteDriver: the dialect of every runtime's driver. */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}
