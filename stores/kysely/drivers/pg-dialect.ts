import {
  CompiledQuery,
  createQueryId,
  IdentifierNode,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  RawNode,
} from 'kysely';
import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  TransactionSettings,
} from 'kysely';
import type { DatabaseError, Pool } from 'pg';
import { PgConnection, type PgConnectionShared } from './pg-connection.ts';
import { StatementNames } from './statement-names.ts';

export interface PgDialectOptions {
  /** Whether statements are prepared once per connection (see StatementNames). */
  preparedStatements: boolean;
  /** pg's `DatabaseError`, from the pg module the pool came from. */
  serverError: typeof DatabaseError;
}

/**
 * Kysely on a `pg` pool through Kysely's documented extension point (a `Dialect` and its
 * `Driver`), in the manner of Kysely's own PostgresDialect, whose compiler, adapter and
 * introspector it uses. It differs in its connections (PgConnection): statements are prepared,
 * and a connection whose query failed without an answer from the server is closed, not reused.
 */
export class PgDialect implements Dialect {
  readonly #pool: Pool;
  readonly #shared: PgConnectionShared;

  constructor(pool: Pool, options: PgDialectOptions) {
    this.#pool = pool;
    this.#shared = {
      names: options.preparedStatements ? new StatementNames() : undefined,
      serverError: options.serverError,
    };
  }

  createDriver(): Driver {
    return new PgDriver(this.#pool, this.#shared);
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

type CompileQuery = QueryCompiler['compileQuery'];

class PgDriver implements Driver {
  readonly #pool: Pool;
  readonly #shared: PgConnectionShared;
  #destroyed = false;

  constructor(pool: Pool, shared: PgConnectionShared) {
    this.#pool = pool;
    this.#shared = shared;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#pool.connect();
    if (this.#destroyed) {
      client.release();
      throw new Error('the PostgreSQL pool has been closed');
    }
    return new PgConnection(client, this.#shared);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // Kysely checked the settings against its lists of access modes and isolation levels.
    const mode = [settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode]
      .filter(Boolean)
      .join(' ');
    await connection.executeQuery(CompiledQuery.raw(mode === '' ? 'begin' : `start transaction ${mode}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A connection given up on is closed on release, and PostgreSQL rolls back a transaction whose
    // connection closed; sending the rollback would only report the same loss over again.
    if ((connection as PgConnection).lost) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await connection.executeQuery(savepointCommand('savepoint', name, compile));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await connection.executeQuery(savepointCommand('rollback to', name, compile));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await connection.executeQuery(savepointCommand('release', name, compile));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PgConnection).release();
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    await this.#pool.end();
  }
}

/** A savepoint command, its name quoted as an identifier by the compiler. */
function savepointCommand(command: string, name: string, compile: CompileQuery): CompiledQuery {
  return compile(
    RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]),
    createQueryId(),
  );
}
