import type { Kysely } from 'kysely';
import type {
  BlacklistMonitor,
  Device,
  NewBlacklistMonitor,
  NewDevice,
  RecordChange,
  UpdateResult,
} from '../../../core/index.ts';
import type { Database, DbInteger } from '../schema.ts';
import { storeError, type StoreContext } from '../store-context.ts';
import { applyChange, type ChangedKind } from './apply-change.ts';
import { changedColumns, fieldColumns, pickColumns, type RowChange } from './update-record.ts';

type Monitored = Device | BlacklistMonitor;
type NewMonitored = NewDevice | NewBlacklistMonitor;

/** What a change does beside its row, in its transaction (a device's location schedules). */
export type FollowChange<T, New> = (
  change: RecordChange<T, New>,
) => ((trx: Kysely<Database>) => Promise<void>) | undefined;

/** The table a device or a monitor lives in, and what its change brings along. */
export interface MonitoredTable<T extends Monitored, New extends NewMonitored, Row> {
  table: 'devices' | 'blacklist_monitors';
  fromRow: (row: Row) => T;
  findDuplicate: (to: New) => Promise<{ id: DbInteger } | undefined>;
  follow?: FollowChange<T, New>;
}

/**
 * A device's or monitor's change (apply-change.ts): the create's fields from `to`, the engine's
 * columns per its effect, a device's location schedules and the events, in one statement or
 * transaction. Counted as a write.
 */
export async function updateMonitored<T extends Monitored, New extends NewMonitored, Row>(
  ctx: StoreContext,
  of: MonitoredTable<T, New, Row>,
  userId: number,
  id: number,
  change: RecordChange<T, New>,
): Promise<UpdateResult<T>> {
  try {
    const kind: ChangedKind<T, New, Row, T> = {
      rowChange: (c) => rowChange(ctx, of, userId, id, c),
      judged: of.fromRow,
      answered: of.fromRow,
      findDuplicate: of.findDuplicate,
    };
    return await applyChange(ctx.db, ctx.dialect, kind, change);
  } catch (error) {
    throw storeError(error);
  } finally {
    ctx.writes++;
  }
}

/**
 * A device's or monitor's change as SQL: the fields that change, compared with what they held
 * when the change was judged, and for a pause, resume or restart of a
 * device its status too, since the change moves it.
 */
function rowChange<T extends Monitored, New extends NewMonitored, Row>(
  ctx: StoreContext,
  of: MonitoredTable<T, New, Row>,
  userId: number,
  id: number,
  change: RecordChange<T, New>,
): RowChange {
  const { table } = of;
  const before = fieldColumns(ctx.dialect, change.from, change.fields);
  const after = fieldColumns(ctx.dialect, change.to, change.fields);
  const judged = pickColumns(
    before,
    change.fields.filter((name) => Object.hasOwn(change.from, name)),
  );
  const expect = { ...judged };
  const movesStatus = change.effect === 'pause' || change.effect === 'resume' || change.effect === 'restart';
  if (table === 'devices' && movesStatus) expect.status = (change.from as Device).status;
  const last = change.from.last_checked_at;
  const latest =
    last === null ? undefined : new Date(Date.parse(last) + change.to.check_interval_s * 1000).toISOString();
  const follow = of.follow?.(change);
  return {
    table,
    userId,
    id,
    set: changedColumns(before, after, change.fields, judged),
    expect,
    effect: change.effect,
    at: change.at,
    ...(latest === undefined ? {} : { latest }),
    events: change.events,
    kind: table === 'devices' ? 'device' : 'blacklist_monitor',
    ...(follow === undefined ? {} : { follow }),
  };
}
