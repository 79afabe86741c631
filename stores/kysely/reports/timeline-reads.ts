import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { DEVICE_STATUSES, type DeviceStatus, type ReportRange, type StatusTotals } from '../../../core/index.ts';
import { totalColumn } from '../migrations/timeline-totals.ts';
import { stampText, toStamp } from '../rows.ts';
import type { Database, DbInteger, DbTimestamp, StoreDialect } from '../schema.ts';
import { sqlOf } from '../drivers/sql-of.ts';

// Availability read from the running totals on the status timeline (docs/reports.md,
// "Availability"; migrations/timeline-totals.ts writes them).

/** A change of the timeline as the availability read takes it: its time, status and running totals. */
interface TimelineEdge {
  edge: 'from' | 'next' | 'to' | 'owned';
  at: DbTimestamp | null;
  to_status: string | null;
  totals: DbInteger[];
  total_downs: DbInteger | null;
  longest: DbInteger | null;
}

/** Whose timeline: the owning table, its changes' table and column, its states, its index of down ends. */
export interface Timeline<S extends string> {
  owners: 'devices' | 'heartbeats';
  changes: 'status_changes' | 'heartbeat_status_changes';
  owner: 'device_id' | 'heartbeat_id';
  states: readonly S[];
  downEnds: string;
}

const DEVICES: Timeline<DeviceStatus> = {
  owners: 'devices',
  changes: 'status_changes',
  owner: 'device_id',
  states: DEVICE_STATUSES,
  downEnds: 'status_changes_down_ends',
};

/**
 * How the device spent the range, from the running totals on its timeline (docs/reports.md,
 * "Availability"): the last change at or before `from`, the first after it, the last before `to`,
 * and the longest `down` period that began and ended inside the range, in one statement whatever
 * the number of changes between. The totals in the range are the differences of the totals at
 * its two ends, each the last change's totals plus the time since it in its status.
 */
export function deviceStatusTotals(
  db: Kysely<Database>,
  dialect: StoreDialect,
  userId: number,
  deviceId: number,
  range: ReportRange,
): Promise<StatusTotals | undefined> {
  return timelineTotals(db, dialect, DEVICES, userId, deviceId, range);
}

/** deviceStatusTotals for any timeline with running totals: a device's, or a heartbeat's (migration 0015). */
export async function timelineTotals<S extends string>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  timeline: Timeline<S>,
  userId: number,
  deviceId: number,
  range: ReportRange,
): Promise<StatusTotals<S> | undefined> {
  const TOTALS = timeline.states.map(totalColumn);
  const changes = sql.table(timeline.changes);
  const ownerColumn = sql.ref(timeline.owner);
  const from = stampText(range.from);
  const to = stampText(range.to);
  const { stamp } = sqlOf(dialect);
  const columns = sql.raw(`at, to_status, ${TOTALS.join(', ')}, total_downs, cast(null as bigint) as longest`);
  const device = sql`(select id from owned)`;
  // The ends of down periods longest first: the first inside the range is the answer, usually
  // one of the first few read, where a scan by time would read every period in the range.
  const longestFirst = sql.raw(dialect === 'sqlite' ? `indexed by ${timeline.downEnds}` : '');
  const { rows } = await sql<Record<string, DbInteger | DbTimestamp | null>>`
    with owned as (select id from ${sql.table(timeline.owners)} where id = ${deviceId} and user_id = ${userId}),
    at_from as (select 'from' as edge, ${columns} from ${changes}
      where ${ownerColumn} = ${device} and at <= ${stamp(from)} order by at desc, id desc limit 1),
    after_from as (select 'next' as edge, ${columns} from ${changes}
      where ${ownerColumn} = ${device} and at > ${stamp(from)} and at < ${stamp(to)} order by at, id limit 1),
    before_to as (select 'to' as edge, ${columns} from ${changes}
      where ${ownerColumn} = ${device} and at < ${stamp(to)} order by at desc, id desc limit 1)
    select * from at_from union all select * from after_from union all select * from before_to
    union all select 'owned' as edge, null, null, ${sql.raw(TOTALS.map(() => 'null').join(', '))}, null,
      (select previous_ms from ${changes} ${longestFirst}
        where ${ownerColumn} = ${device} and from_status = 'down' and prev_at >= ${stamp(from)} and at < ${stamp(to)}
        order by previous_ms desc limit 1)
    from owned`.execute(db);
  const edges = new Map<string, TimelineEdge>();
  for (const row of rows) {
    const edge: TimelineEdge = {
      edge: row.edge as TimelineEdge['edge'],
      at: row.at as DbTimestamp | null,
      to_status: row.to_status as string | null,
      totals: TOTALS.map((column) => row[column] as DbInteger),
      total_downs: row.total_downs as DbInteger | null,
      longest: row.longest as DbInteger | null,
    };
    edges.set(edge.edge, edge);
  }
  const owned = edges.get('owned');
  if (owned === undefined) return undefined;
  return totalsBetween(
    timeline.states,
    Date.parse(range.from),
    Date.parse(range.to),
    edges,
    Number(owned.longest ?? 0),
  );
}

/** The totals in [from, to) from the changes read at its ends (see deviceStatusTotals). */
function totalsBetween<S extends string>(
  states: readonly S[],
  from: number,
  to: number,
  edges: Map<string, TimelineEdge>,
  inside: number,
): StatusTotals<S> {
  const totals: StatusTotals<S> = { ms: {}, down_periods: 0, longest_down_ms: 0 };
  const last = edges.get('to');
  // Nothing known before `to`: the whole range is unknown.
  if (last === undefined) return totals;
  const atFrom = edges.get('from');
  const next = edges.get('next');
  // Where the known time starts: `from`, or the first change after it when none came before.
  const start = (atFrom ?? next)!;
  const startMs = atFrom === undefined ? Date.parse(toStamp(start.at!)) : from;
  const startAt = Date.parse(toStamp(start.at!));
  const lastAt = Date.parse(toStamp(last.at!));
  states.forEach((status, i) => {
    const atEnd = Number(last.totals[i]) + (last.to_status === status ? to - lastAt : 0);
    const atStart = Number(start.totals[i]) + (start.to_status === status ? startMs - startAt : 0);
    if (atEnd - atStart > 0) totals.ms[status] = atEnd - atStart;
  });
  const downs = Number(last.total_downs) - Number(start.total_downs) + (start.to_status === 'down' ? 1 : 0);
  totals.down_periods = downs;
  if (downs === 0) return totals;
  // The longest period: one that began and ended inside the range (read whole), the one running
  // at `from`, cut at `from`, or the one running at `to`, cut at `to`.
  let longest = inside;
  if (atFrom?.to_status === 'down') {
    const end = next === undefined ? to : Date.parse(toStamp(next.at!));
    longest = Math.max(longest, end - from);
  }
  if (last.to_status === 'down') longest = Math.max(longest, to - Math.max(lastAt, startMs));
  totals.longest_down_ms = longest;
  return totals;
}
