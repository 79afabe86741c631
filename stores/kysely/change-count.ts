/**
 * The marker of migrations/0005-change-marker.ts: the number of committed writes to devices,
 * monitors and webhooks, by every writer, and the identities of those tables (a table dropped, or
 * dropped and made again, fires no trigger, and a list kept from before must not answer for it).
 */
export const CHANGE_COUNT_SQL = `select coalesce(sum(writes), 0)::text
  || ':' || coalesce(to_regclass('devices')::oid::text, '-')
  || ':' || coalesce(to_regclass('blacklist_monitors')::oid::text, '-')
  || ':' || coalesce(to_regclass('webhooks')::oid::text, '-') as marker from change_counts`;
