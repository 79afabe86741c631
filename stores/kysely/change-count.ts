import type { Pool } from 'pg';

/**
 * The marker of migrations/0005-change-marker.ts: the number of committed writes to devices,
 * monitors and webhooks, by every writer, and the identities of those tables (a table dropped, or
 * dropped and made again, fires no trigger, and a list kept from before must not answer for it).
 */
export const CHANGE_COUNT_SQL = `select coalesce(sum(writes), 0)::text
  || ':' || coalesce(to_regclass('devices')::oid::text, '-')
  || ':' || coalesce(to_regclass('blacklist_monitors')::oid::text, '-')
  || ':' || coalesce(to_regclass('webhooks')::oid::text, '-') as marker from change_counts`;

/** Reads the marker afresh; undefined when it cannot be had (see KyselyStore.changeMarker). */
export type ChangeCountReader = () => Promise<string | undefined>;

/**
 * The marker read straight from the pool, past Kysely: it runs for every batch of list requests
 * (docs/performance.md, "List answers, and why they are never stale"), and Kysely's query
 * building, plugins and result copying cost more than the query's own work in this process. The
 * statement is named (prepared once per connection) unless the pool must not keep prepared
 * statements, and its one value comes back as an array, not an object per row.
 */
export function poolChangeCount(pool: Pool, preparedStatements: boolean): ChangeCountReader {
  const query = { ...(preparedStatements ? { name: 'mapi_change_count' } : {}), text: CHANGE_COUNT_SQL, rowMode: 'array' as const };
  return async () => {
    try {
      // Not pool.query(): it releases a connection whose query failed with the error, which
      // closes it, and a schema without the table would then cost a new connection per read. A
      // connection that broke is dropped on release all the same.
      const client = await pool.connect();
      try {
        return (await client.query<[string]>(query)).rows[0]?.[0];
      } finally {
        client.release();
      }
    } catch {
      // Without the table (a schema older than 0005) or on any failure: no marker, so lists are
      // read afresh and report their own errors.
      return undefined;
    }
  };
}
