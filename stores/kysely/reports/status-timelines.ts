import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DeviceStatus, ReportRange, StatusTimeline } from '../../../core/index.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import type { Database, DbInteger, DbTimestamp, StoreDialect } from '../schema.ts';

/**
 * ReportStore.statusTimelines: for each of the user's devices among `deviceIds`, the last change
 * at or before the range's start and every change inside it, in one statement, each device's part
 * read by the (device_id, at) index. A status page reads every component's days from it at once
 * (docs/status-pages.md).
 */
export async function statusTimelines(
  db: Kysely<Database>,
  dialect: StoreDialect,
  userId: number,
  deviceIds: readonly number[],
  range: ReportRange,
): Promise<StatusTimeline[]> {
  const ids = [...new Set(deviceIds)];
  if (ids.length === 0) return [];
  const { stamp } = sqlOf(dialect);
  const from = stamp(stampText(range.from));
  const to = stamp(stampText(range.to));
  const { rows } = await sql<{
    device_id: DbInteger;
    id: DbInteger;
    to_status: DeviceStatus | null;
    at: DbTimestamp | null;
  }>`
    with owned as (select id from devices where user_id = ${userId} and id in (${sql.join(ids)}))
    select owned.id as device_id, sc0.id, sc0.to_status, sc0.at from owned
      left join status_changes sc0 on sc0.id = (select id from status_changes
        where device_id = owned.id and at <= ${from} order by at desc, id desc limit 1)
    union all
    select sc.device_id, sc.id, sc.to_status, sc.at from status_changes sc
      where sc.device_id in (select id from owned) and sc.at > ${from} and sc.at < ${to}
    order by 1, 4, 2`.execute(db);
  const timelines = new Map<number, StatusTimeline>();
  for (const row of rows) {
    const deviceId = toId(row.device_id);
    let timeline = timelines.get(deviceId);
    if (timeline === undefined) timelines.set(deviceId, (timeline = { device_id: deviceId, changes: [] }));
    if (row.to_status !== null && row.at !== null)
      timeline.changes.push({ status: row.to_status, at: toStamp(row.at) });
  }
  return [...timelines.values()];
}
