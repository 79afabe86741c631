import { sql, type Kysely, type Selectable } from 'kysely';
import { CLOSER_OF, nextReminder, OPENER_OF, type QueuedEscalation, type Timestamp } from '../../../core/internal.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import type { Database, IncidentsTable, StoreDialect } from '../schema.ts';
import type { NotificationsTable } from './channel-tables.ts';
import type { EventsTable } from '../schema.ts';

// The queue's notifications of incidents (docs/notifications.md, "Reminders, escalation and
// acknowledgement"), written inside the callers' transactions: the acknowledgement's, the
// fan-out's and a message's record.

type Trx = Kysely<Database>;

type EventOfRecord = Pick<Selectable<EventsTable>, 'id' | 'user_id' | 'resource_kind' | 'resource_id'>;

/**
 * The id of the event of `type` about the record `event` is about that comes nearest to it in the
 * outbox, `before` or `after` it: an opener's closer, a closer's opener.
 */
async function nearestEvent(
  trx: Trx,
  event: EventOfRecord,
  type: Selectable<EventsTable>['type'],
  direction: 'before' | 'after',
): Promise<{ id: Selectable<EventsTable>['id'] } | undefined> {
  return trx
    .selectFrom('events')
    .select('id')
    .where('user_id', '=', toId(event.user_id))
    .where('resource_kind', '=', event.resource_kind)
    .where('resource_id', '=', toId(event.resource_id))
    .where('type', '=', type)
    .where('id', direction === 'before' ? '<' : '>', toId(event.id))
    .orderBy('id', direction === 'before' ? 'desc' : 'asc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The escalation to the channel of the incident that `closer` (a `device.up`, `heartbeat.up`)
 * closes, as the queue holds it (core/channels/incident-schedule.ts, `recoveryFollowsEscalation`,
 * judges it); undefined when none was queued. The incident's opener is the record's newest
 * opening event before the closer.
 */
export async function escalationOf(
  trx: Trx,
  dialect: StoreDialect,
  channelId: number,
  closer: Pick<Selectable<EventsTable>, 'id' | 'user_id' | 'type' | 'resource_kind' | 'resource_id'>,
): Promise<QueuedEscalation | undefined> {
  const openerType = OPENER_OF[closer.type];
  if (openerType === undefined) return undefined;
  const opener = await nearestEvent(trx, closer, openerType, 'before');
  if (opener === undefined) return undefined;
  // Locked (PostgreSQL): a drop or record of the escalation under the channel's lease that wrote
  // it first is waited for and its state read; one that comes after waits for this fan-out, then
  // finds the recovery it queued and drops it as its rule says (dropRecoveriesOf runs after the
  // escalation's own update; `reached_attempts` changes only under the lease).
  const { rows } = await sql<
    Pick<Selectable<NotificationsTable>, 'status' | 'due_at' | 'next_attempt_at' | 'reached_attempts'>
  >`
    select status, due_at, next_attempt_at, reached_attempts from notifications
    where channel_id = ${channelId} and event_id = ${toId(opener.id)} and reason = 'escalation'
    ${sql.raw(sqlOf(dialect).forUpdate)}`.execute(trx);
  const escalation = rows[0];
  if (escalation === undefined) return undefined;
  return {
    status: escalation.status,
    due_at: toStamp(escalation.due_at ?? escalation.next_attempt_at),
    reached_attempts: Number(escalation.reached_attempts),
  };
}

/**
 * Drops the channel's pending recovery of each incident whose escalation among `ids` is not to be
 * told (dropped as stale, or given up), inside the caller's transaction under the channel's lease,
 * after the escalation's own update (so a fan-out judging it concurrently is waited for):
 * a channel that never heard the down hears no recovery. An escalation that an attempt may have
 * brought to the service (`reached_attempts`) may have been heard, and keeps it. The recovery is
 * the first closing event of the record after the opener (a later incident's is its own).
 */
export async function dropRecoveriesOf(trx: Trx, channelId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const openers = await trx
    .selectFrom('notifications as n')
    .innerJoin('events as e', 'e.id', 'n.event_id')
    .select(['e.id', 'e.user_id', 'e.type', 'e.resource_kind', 'e.resource_id'])
    .where('n.id', 'in', [...ids])
    .where('n.channel_id', '=', channelId)
    .where('n.reason', '=', 'escalation')
    .where('n.reached_attempts', '=', 0)
    .execute();
  for (const opener of openers) {
    const closerType = CLOSER_OF[opener.type];
    if (closerType === undefined) continue;
    const closer = await nearestEvent(trx, opener, closerType, 'after');
    if (closer === undefined) continue;
    await trx
      .updateTable('notifications')
      .set({ status: 'dropped' })
      .where('channel_id', '=', channelId)
      .where('event_id', '=', toId(closer.id))
      .where('reason', '=', 'event')
      .where('status', '=', 'pending')
      .execute();
  }
}

/**
 * The event that opened `incident`: its record's first opening event at or after its start (a
 * device's `down` is dated at the incident's start; a heartbeat's may follow the deadline it missed).
 */
async function openerOf(trx: Trx, incident: Selectable<IncidentsTable>): Promise<number | undefined> {
  const device = incident.device_id !== null;
  const row = await trx
    .selectFrom('events')
    .select('id')
    .where('user_id', '=', toId(incident.user_id))
    // Heartbeats are a kind of record of their own in the outbox (heartbeats/heartbeat-writes.ts).
    .where('resource_kind', '=', device ? 'device' : ('heartbeat' as never))
    .where('resource_id', '=', toId((device ? incident.device_id : incident.heartbeat_id)!))
    .where('type', '=', device ? 'device.down' : 'heartbeat.down')
    .where('created_at', '>=', stampText(toStamp(incident.started_at)))
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : toId(row.id);
}

/**
 * Queues an `acknowledgement` of the open `incident`, due at `at`, for each PagerDuty channel that
 * was delivered the incident's trigger (its event, escalation or a reminder), that an attempt may
 * have brought it to, or whose trigger is due and not yet written (it may be on its way, or a
 * down event still to be sent): PagerDuty then acknowledges the alert under the same `dedup_key`,
 * the acknowledgement being queued after the trigger, and ignores one it never raised. Other
 * types hear nothing of it.
 */
export async function queueAcknowledgements(trx: Trx, incident: Selectable<IncidentsTable>, at: Timestamp) {
  const opener = await openerOf(trx, incident);
  if (opener === undefined) return;
  const told = await trx
    .selectFrom('notifications as n')
    .innerJoin('channels as c', 'c.id', 'n.channel_id')
    .select('n.channel_id')
    .distinct()
    .where('n.event_id', '=', opener)
    .where('c.type', '=', 'pagerduty')
    .where((eb) =>
      eb.or([
        eb('n.status', '=', 'delivered'),
        eb('n.reached_attempts', '>', 0),
        eb.and([eb('n.status', '=', 'pending'), eb('n.next_attempt_at', '<=', stampText(at))]),
      ]),
    )
    .where('n.reason', 'in', ['event', 'escalation', 'reminder'])
    .execute();
  if (told.length === 0) return;
  await trx
    .insertInto('notifications')
    .values(
      told.map((row) => ({
        channel_id: toId(row.channel_id),
        event_id: opener,
        status: 'pending' as const,
        next_attempt_at: stampText(at),
        reason: 'acknowledgement' as const,
        seq: 0,
        due_at: stampText(at),
      })),
    )
    .onConflict((oc) => oc.columns(['channel_id', 'event_id', 'reason', 'seq']).doNothing())
    .execute();
}

/**
 * Queues the channel's next reminder after each of `ids` that is a reminder (delivered or given
 * up), at the channel's `remind_every_s` as it is now (none when it was set to null meanwhile).
 * Idempotent through the queue's identity (channel, event, reason, seq).
 */
export async function queueNextReminders(trx: Trx, channelId: number, ids: readonly number[], now: Timestamp) {
  if (ids.length === 0) return;
  const reminders = await trx
    .selectFrom('notifications')
    .select(['event_id', 'seq', 'due_at', 'next_attempt_at'])
    .where('id', 'in', [...ids])
    .where('reason', '=', 'reminder')
    .execute();
  if (reminders.length === 0) return;
  const channel = await trx
    .selectFrom('channels')
    .select('remind_every_s')
    .where('id', '=', channelId)
    .executeTakeFirst();
  const rows = [];
  for (const reminder of reminders) {
    const dueAt = toStamp(reminder.due_at ?? reminder.next_attempt_at);
    const next = nextReminder(dueAt, reminder.seq, channel?.remind_every_s ?? null, now);
    if (next === null) continue;
    rows.push({
      channel_id: channelId,
      event_id: toId(reminder.event_id),
      status: 'pending' as const,
      next_attempt_at: stampText(next.due_at),
      reason: next.reason,
      seq: next.seq,
      due_at: stampText(next.due_at),
    });
  }
  if (rows.length === 0) return;
  await trx
    .insertInto('notifications')
    .values(rows)
    .onConflict((oc) => oc.columns(['channel_id', 'event_id', 'reason', 'seq']).doNothing())
    .execute();
}
