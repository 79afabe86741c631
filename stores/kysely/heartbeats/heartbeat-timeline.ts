import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { HEARTBEAT_TIMELINE_STATES, type HeartbeatTimelineChange } from '../../../core/internal.ts';
import { stampText, toStamp } from '../rows.ts';
import type { Database } from '../schema.ts';

// A heartbeat's status timeline and incidents (docs/reports.md, "Availability"; docs/heartbeats.md,
// "Events, incidents and reports"), written by the store in the transaction of the change, which holds the heartbeat's
// row: each change follows the last one written, as the device trigger's do
// (migrations/timeline-totals.ts).

const total = (state: string) => `total_${state}_ms` as const;
type TotalColumn = `total_${(typeof HEARTBEAT_TIMELINE_STATES)[number]}_ms`;

/**
 * Writes one change: its running totals from the change before (dated no earlier than it), the
 * open incident closed when it leaves `down`, one opened when it enters `down`.
 */
export async function writeTimelineChange(
  trx: Kysely<Database>,
  userId: number,
  heartbeatId: number,
  change: HeartbeatTimelineChange,
): Promise<void> {
  const previous = await trx
    .selectFrom('heartbeat_status_changes')
    .selectAll()
    .where('heartbeat_id', '=', heartbeatId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  let atMs = Date.parse(change.at);
  let lasted: number | null = null;
  if (previous !== undefined) {
    const prevAt = Date.parse(toStamp(previous.at));
    atMs = Math.max(atMs, prevAt);
    lasted = atMs - prevAt;
  }
  const at = new Date(atMs).toISOString();
  const totals: Record<string, number> = {};
  for (const state of HEARTBEAT_TIMELINE_STATES) {
    const column = total(state) as TotalColumn;
    const before = previous === undefined ? 0 : Number(previous[column]);
    totals[column] = before + (previous?.to_status === state ? (lasted ?? 0) : 0);
  }
  await sql`insert into heartbeat_status_changes
      (heartbeat_id, from_status, to_status, at, prev_at, previous_ms, ${sql.raw(Object.keys(totals).join(', '))}, total_downs)
    values (${heartbeatId}, ${change.from}, ${change.to}, ${stampText(at)},
      ${previous === undefined ? null : stampText(toStamp(previous.at))}, ${lasted},
      ${sql.join(Object.values(totals))},
      ${Number(previous?.total_downs ?? 0) + (change.to === 'down' ? 1 : 0)})`.execute(trx);
  if (change.from === 'down') {
    await trx
      .updateTable('incidents')
      .set({ resolved_at: stampText(at) })
      .where('heartbeat_id', '=', heartbeatId)
      .where('resolved_at', 'is', null)
      .execute();
  }
  if (change.to === 'down') {
    await trx
      .insertInto('incidents')
      .values({
        user_id: userId,
        device_id: null,
        heartbeat_id: heartbeatId,
        started_at: stampText(at),
        cause: change.cause === null ? null : JSON.stringify(change.cause),
        locations: null,
      })
      .execute();
  }
}
