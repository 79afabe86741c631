import { sql, type Kysely } from 'kysely';
import type { Timestamp } from '../../core/index.ts';
import { sqlOf } from './drivers/sql-of.ts';
import { stampText, toId } from './rows.ts';
import type { Database, DbInteger, StoreDialect } from './schema.ts';

/**
 * How long a fan-out marker is kept before the floor passes it. An outbox event is fanned out
 * unless its transaction commits this long after a later event was fanned out: far beyond any
 * statement timeout, so the floor never passes an event that is still on its way.
 */
const FLOOR_LAG_MS = 60 * 60 * 1000;

/**
 * A fan-out's bookkeeping tables (migrations 0004 and 0017): a marker per event fanned out, and
 * the floor below which every event was.
 */
export type FanoutTables =
  | { markers: 'webhook_event_fanouts'; floor: 'webhook_fanout_floor' }
  | { markers: 'channel_event_fanouts'; floor: 'channel_fanout_floor' };

/**
 * One batch of the outbox fanned out, in the caller's transaction (the webhooks' deliveries, the
 * channels' notifications): up to `limit` events above the floor not yet marked are marked, oldest
 * first, `expand` makes what they lead to, and the floor is raised. The marker is the claim: a
 * second worker's insert of the same event waits for the first to commit and then does nothing,
 * so each event is fanned out once. Says how many events it marked.
 */
export async function fanOutBatch(
  trx: Kysely<Database>,
  dialect: StoreDialect,
  tables: FanoutTables,
  now: Timestamp,
  limit: number,
  expand: (eventIds: number[]) => Promise<void>,
): Promise<number> {
  const stamp = (value: Timestamp) => sqlOf(dialect).stamp(stampText(value));
  const markers = sql.table(tables.markers);
  const floor = sql.table(tables.floor);
  const marked = await sql<{ event_id: DbInteger }>`
    insert into ${markers} (event_id, fanned_out_at)
    select e.id, ${stamp(now)} from events e
    where e.id > (select event_id from ${floor} where id = 1)
      and not exists (select 1 from ${markers} f where f.event_id = e.id)
    order by e.id limit ${limit}
    on conflict do nothing
    returning event_id`.execute(trx);
  const ids = marked.rows.map((r) => toId(r.event_id));
  if (ids.length > 0) await expand(ids);
  // The floor moves up to the newest marker older than FLOOR_LAG_MS, but never to or past the
  // first event not fanned out yet, and the markers it passed go, so the anti-join above only
  // ever looks at recent events.
  const cutoff = stampText(new Date(Date.parse(now) - FLOOR_LAG_MS).toISOString());
  await sql`
    update ${floor} set event_id = coalesce((
      select max(f.event_id) from ${markers} f
      where f.fanned_out_at < ${stamp(cutoff)}
        and f.event_id < coalesce((
          select min(e.id) from events e
          where e.id > ${sql.ref(`${tables.floor}.event_id`)}
            and not exists (select 1 from ${markers} g where g.event_id = e.id)
        ), ${Number.MAX_SAFE_INTEGER})
    ), event_id) where id = 1`.execute(trx);
  await sql`delete from ${markers} where event_id <= (select event_id from ${floor} where id = 1)`.execute(trx);
  return ids.length;
}
