import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DeviceStatus, ReportRange, StatusTimeline, Timestamp } from '../../../core/index.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import type { Database, DbInteger, DbTimestamp, StoreDialect } from '../schema.ts';

/** Where a kind of record keeps its status timeline: a device's, or a heartbeat's. */
export interface TimelineTables {
  owners: 'devices' | 'heartbeats';
  changes: 'status_changes' | 'heartbeat_status_changes';
  owner: 'device_id' | 'heartbeat_id';
}

const DEVICES: TimelineTables = { owners: 'devices', changes: 'status_changes', owner: 'device_id' };

/**
 * For each of the user's records among `ids` (those of `tables.owners`), the last change at or
 * before the range's start and every change inside it, in one statement, each record's part read
 * by the (owner, at) index; a record of the user's without a change has an empty list. A status
 * page reads every component's days from it at once (docs/status-pages.md).
 */
export async function timelinesOf<S extends string>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  tables: TimelineTables,
  userId: number,
  ids: readonly number[],
  range: ReportRange,
): Promise<Map<number, { status: S; at: Timestamp }[]>> {
  const timelines = new Map<number, { status: S; at: Timestamp }[]>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return timelines;
  const { stamp } = sqlOf(dialect);
  const from = stamp(stampText(range.from));
  const to = stamp(stampText(range.to));
  const owners = sql.table(tables.owners);
  const changes = sql.table(tables.changes);
  const owner = sql.ref(tables.owner);
  const { rows } = await sql<{ owner_id: DbInteger; id: DbInteger; to_status: S | null; at: DbTimestamp | null }>`
    with owned as (select id from ${owners} where user_id = ${userId} and id in (${sql.join(wanted)}))
    select owned.id as owner_id, sc0.id, sc0.to_status, sc0.at from owned
      left join ${changes} sc0 on sc0.id = (select id from ${changes}
        where ${owner} = owned.id and at <= ${from} order by at desc, id desc limit 1)
    union all
    select sc.${owner}, sc.id, sc.to_status, sc.at from ${changes} sc
      where sc.${owner} in (select id from owned) and sc.at > ${from} and sc.at < ${to}
    order by 1, 4, 2`.execute(db);
  for (const row of rows) {
    const id = toId(row.owner_id);
    let timeline = timelines.get(id);
    if (timeline === undefined) timelines.set(id, (timeline = []));
    if (row.to_status !== null && row.at !== null) timeline.push({ status: row.to_status, at: toStamp(row.at) });
  }
  return timelines;
}

/** ReportStore.statusTimelines: `timelinesOf` the user's devices. */
export async function statusTimelines(
  db: Kysely<Database>,
  dialect: StoreDialect,
  userId: number,
  deviceIds: readonly number[],
  range: ReportRange,
): Promise<StatusTimeline[]> {
  const timelines = await timelinesOf<DeviceStatus>(db, dialect, DEVICES, userId, deviceIds, range);
  return [...timelines].map(([device_id, changes]) => ({ device_id, changes }));
}
