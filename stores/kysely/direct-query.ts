import type { Pool } from 'pg';

/** One statement with its parameters, straight to the database's driver; resolves to its rows. */
export type DirectQuery = (sql: string, parameters: readonly unknown[]) => Promise<{ rows: unknown[] }>;

/**
 * Statements the store runs on every create or list (the precompiled INSERT, the change-count
 * read) go to the pool without Kysely's executor around them: the same clients, their
 * prepared-statement naming and their timeouts, less the per-query wrappers, copies and promise
 * layers (docs/performance.md, "Where the time goes").
 */
export function poolQuery(pool: Pool): DirectQuery {
  return async (text, values) => {
    const client = await pool.connect();
    try {
      return await client.query(text, values as unknown[]);
    } finally {
      // Without an error, as Kysely releases: the pool itself drops a client whose connection
      // broke, and a query that failed (a missing table) must not cost the connection.
      client.release();
    }
  };
}
