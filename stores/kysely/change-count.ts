/**
 * The marker of migrations/0005-change-marker.ts: the number of committed writes to devices,
 * monitors, webhooks and channels (migration 0014), by every writer, and the identities of those
 * tables (a table dropped, or dropped and made again, fires no trigger, and a list kept from
 * before must not answer for it).
 */
export const CHANGE_COUNT_SQL = `select coalesce(sum(writes), 0)::text
  || ':' || coalesce(to_regclass('devices')::oid::text, '-')
  || ':' || coalesce(to_regclass('blacklist_monitors')::oid::text, '-')
  || ':' || coalesce(to_regclass('webhooks')::oid::text, '-')
  || ':' || coalesce(to_regclass('channels')::oid::text, '-') as marker from change_counts`;

/**
 * One write counted for this connection's server process (`pg_backend_pid()`), as the triggers of
 * migrations/0005-change-marker.ts count one, when `condition` (SQL) holds: for a write no trigger
 * sees, raw results expired by a delete or a dropped partition, which a response-time series shows
 * in an hour its range cuts (docs/reports.md). Run in the transaction of the write, so the count
 * moves when the write becomes visible.
 */
export function countWriteSql(condition = 'true'): string {
  return `insert into change_counts (backend, writes) select pg_backend_pid(), 1 where ${condition}
    on conflict (backend) do update set writes = change_counts.writes + 1`;
}
