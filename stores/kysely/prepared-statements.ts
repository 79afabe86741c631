import type { PoolClient } from 'pg';

/** Texts seen before one is named: a statement run once (a migration, say) is not worth a name. */
const USES_BEFORE_NAMING = 2;
/** The store's statements are a few dozen shapes; the bound keeps odd ones from growing the map. */
const MAX_TEXTS = 1_000;
const MAX_NAMED = 200;

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

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Names the statements Kysely sends, so each connection parses and plans a statement once and
 * then only binds and executes it. Kysely sends every statement as text plus parameters, which
 * PostgreSQL parses and plans anew each time: on a create, that was a third of the database's work.
 *
 * One registry serves the whole pool, so a text has the same name on every connection. When a
 * schema change under a running server invalidates a prepared statement (a rolling deploy that
 * migrates), the statement is retried once under a fresh name, and every later use prepares anew.
 */
export class PreparedStatements {
  readonly #uses = new Map<string, number>();
  readonly #names = new Map<string, string>();
  /** Starts the names afresh after a schema change: the old prepared statements stay unused. */
  #generation = 0;

  #nameOf(text: string): string | undefined {
    const name = this.#names.get(text);
    if (name !== undefined) return name;
    const uses = (this.#uses.get(text) ?? 0) + 1;
    if (uses < USES_BEFORE_NAMING || this.#names.size >= MAX_NAMED) {
      if (this.#uses.size < MAX_TEXTS || this.#uses.has(text)) this.#uses.set(text, uses);
      return undefined;
    }
    this.#uses.delete(text);
    const named = `mapi_${this.#generation}_${this.#names.size}`;
    this.#names.set(text, named);
    return named;
  }

  #restart(): void {
    this.#generation++;
    this.#names.clear();
  }

  /** Makes a pool client send named statements for Kysely's `query(text, parameters)` calls. */
  attach(client: PoolClient): void {
    const target = client as unknown as { query: Query };
    const query: Query = target.query.bind(client);
    target.query = (config, values, callback) => {
      // Anything else (a cursor, a callback, a config object) is passed on as it came.
      if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined)
        return query(config, values, callback);
      const name = this.#nameOf(config);
      if (name === undefined) return query(config, values);
      return (query({ name, text: config, values }) as Promise<unknown>).catch(async (stale: unknown) => {
        if (!isStalePlan(stale)) throw stale;
        if (this.#names.get(config) === name) this.#restart();
        try {
          return await query(config, values);
        } catch (error) {
          // Inside a transaction the retry cannot run; the stale plan is the error worth seeing.
          throw (error as { code?: unknown }).code === IN_FAILED_TRANSACTION ? stale : error;
        }
      });
    };
  }
}
