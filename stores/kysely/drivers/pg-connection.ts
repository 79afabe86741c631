import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type { DatabaseError, PoolClient, QueryResult as PgResult } from 'pg';
import type { StatementNames } from './statement-names.ts';

/** What a PgConnection shares with the others of its pool. */
export interface PgConnectionShared {
  /** The names of prepared statements, or undefined to send every statement unprepared. */
  names: StatementNames | undefined;
  /**
   * pg's class of the errors the server sent; passed in, so that nothing here imports pg before a
   * PostgreSQL database is opened (the bundled command keeps pg out of its file).
   */
  serverError: typeof DatabaseError;
}

/**
 * A schema change made a prepared statement's result type stale (feature_not_supported, "cached
 * plan must not change result type"). The message is translated where lc_messages is not English;
 * the name of the server routine that raises it is not.
 */
function isStalePlan(error: unknown): boolean {
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

/** in_failed_sql_transaction: the stale statement ran inside a transaction it has now aborted. */
const IN_FAILED_TRANSACTION = '25P02';

/** Commands whose row count Kysely reports as `numAffectedRows`, as its own PostgreSQL driver does. */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * One pooled `pg` client as a Kysely connection. Each statement goes to pg's documented
 * `client.query`: with a name from `StatementNames` (when statements are prepared) as
 * `{ name, text, values }`, so pg prepares it on this connection once and then only binds and
 * executes it.
 *
 * A prepared statement a schema change made stale (a rolling deploy that migrates under a running
 * server) is retried once unprepared, and the names start afresh. Inside a transaction the retry
 * cannot run (PostgreSQL has aborted the transaction), so the stale plan is the error reported.
 *
 * An error that did not come from the server (pg's `query_timeout` giving up with "Query read
 * timeout", a connection reset) leaves the connection in a state nobody knows: its answer may
 * still be on the way. The connection is then given up: later statements on it fail at once, a
 * rollback is left to the server (which rolls back when the connection closes), and on release
 * the pool closes it (`release(error)`, pg-pool's documented way) and connects anew when needed.
 */
export class PgConnection implements DatabaseConnection {
  readonly #client: PoolClient;
  readonly #shared: PgConnectionShared;
  /** Why this connection was given up, once it was. */
  #lost: Error | undefined;

  constructor(client: PoolClient, shared: PgConnectionShared) {
    this.#client = client;
    this.#shared = shared;
  }

  get lost(): boolean {
    return this.#lost !== undefined;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.run(compiled.sql, compiled.parameters);
    return {
      numAffectedRows: AFFECTING.has(result.command) ? BigInt(result.rowCount ?? 0) : undefined,
      rows: result.rows as R[],
    };
  }

  async run(text: string, parameters: readonly unknown[]): Promise<PgResult> {
    if (this.#lost !== undefined) {
      throw new Error('the PostgreSQL connection was given up after an earlier failure', { cause: this.#lost });
    }
    // pg reads the parameters and never changes them; Kysely's are frozen, pg's type is mutable.
    const values = parameters as unknown[];
    let result: PgResult;
    try {
      const name = this.#shared.names?.nameOf(text);
      result = name === undefined ? await this.#client.query(text, values) : await this.#prepared(name, text, values);
    } catch (error) {
      if (!(error instanceof this.#shared.serverError))
        this.#lost = error instanceof Error ? error : new Error(String(error));
      throw error;
    }
    return result;
  }

  async #prepared(name: string, text: string, values: unknown[]): Promise<PgResult> {
    try {
      return await this.#client.query({ name, text, values });
    } catch (stale) {
      if (!isStalePlan(stale)) throw stale;
      this.#shared.names!.restart(text, name);
      try {
        return await this.#client.query(text, values);
      } catch (error) {
        throw (error as { code?: unknown }).code === IN_FAILED_TRANSACTION ? stale : error;
      }
    }
  }

  /** Kysely's `stream()`, which the store never uses (Kysely's own dialect needs pg-cursor for it). */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported on the store's PostgreSQL connections");
  }

  /** Back to the pool, or, for a connection given up on, closed by it. */
  release(): void {
    this.#client.release(this.#lost);
  }
}
