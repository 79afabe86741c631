/**
 * When a channel is told of an incident (docs/notifications.md, "Reminders, escalation and
 * acknowledgement"): the rule both stores' queues apply, so memory, SQLite and PostgreSQL
 * schedule alike. An incident is a device's or a heartbeat's `down` period; the event that opened
 * it carries its reminders, escalation and acknowledgement, each a notification of its own.
 */
import type { Channel, EventType, MonitoringEvent, Timestamp } from '../records/index.ts';
import type { QueuedNotificationReason } from '../store/notification-store.ts';

/** The events that open an incident, and those that close one. */
const OPENERS: readonly EventType[] = ['device.down', 'heartbeat.down'];
const CLOSERS: readonly EventType[] = ['device.up', 'heartbeat.up'];

/** The type of event that opens the incidents a closing event of a type closes, and back. */
export const OPENER_OF: Readonly<Partial<Record<EventType, EventType>>> = {
  'device.up': 'device.down',
  'heartbeat.up': 'heartbeat.down',
};
export const CLOSER_OF: Readonly<Partial<Record<EventType, EventType>>> = {
  'device.down': 'device.up',
  'heartbeat.down': 'heartbeat.up',
};

export const opensIncident = (type: EventType): boolean => OPENERS.includes(type);
export const closesIncident = (type: EventType): boolean => CLOSERS.includes(type);

/** A notification to queue: why, its number among its reason's (reminders count 1, 2, ...), when due. */
export interface ScheduledNotification {
  reason: QueuedNotificationReason;
  seq: number;
  due_at: Timestamp;
}

const plus = (at: Timestamp, seconds: number): Timestamp => new Date(Date.parse(at) + seconds * 1000).toISOString();

/**
 * What `channel` is queued of `event` when it is fanned out at `now`. An event that opens an
 * incident goes at once, or for a channel with `escalate_after_s` as an escalation due that long
 * after the incident opened; with `remind_every_s`, its first reminder is due that long after the
 * channel was to hear of it. Any other event goes at once (a recovery to an escalating channel
 * only as `recoveryFollowsEscalation` says, which the store judges: `recoveryNeedsEscalation`).
 */
export function scheduleFor(
  event: Pick<MonitoringEvent, 'type' | 'created_at'>,
  channel: Pick<Channel, 'remind_every_s' | 'escalate_after_s'>,
  now: Timestamp,
): ScheduledNotification[] {
  if (!opensIncident(event.type)) return [{ reason: 'event', seq: 0, due_at: now }];
  const escalate = channel.escalate_after_s;
  const told = escalate === null ? event.created_at : plus(event.created_at, escalate);
  const out: ScheduledNotification[] = [
    escalate === null ? { reason: 'event', seq: 0, due_at: now } : { reason: 'escalation', seq: 0, due_at: told },
  ];
  if (channel.remind_every_s !== null) {
    out.push({ reason: 'reminder', seq: 1, due_at: plus(told, channel.remind_every_s) });
  }
  return out;
}

/** Whether a recovery reaches `channel` only as the incident's escalation to it allows. */
export const recoveryNeedsEscalation = (
  event: Pick<MonitoringEvent, 'type'>,
  channel: Pick<Channel, 'escalate_after_s'>,
): boolean => closesIncident(event.type) && channel.escalate_after_s !== null;

/** The incident's escalation to a channel as the queue holds it when the recovery is fanned out. */
export interface QueuedEscalation {
  status: 'pending' | 'delivered' | 'failed' | 'dropped';
  due_at: Timestamp;
  /** How many attempts that carried it may have reached the service (ChannelMessageOutcome.reached). */
  reached_attempts: number;
}

/**
 * Whether the recovery is queued for an escalating channel, given the incident's escalation to it
 * (undefined: none was queued) at the fan-out's `now`. Delivered: the channel heard the down.
 * Pending and due: it may be on its way to the service under the channel's lease, so the recovery
 * is queued behind it; if the escalation is instead dropped as stale and no attempt may have
 * brought it to the service, the store drops this recovery with it in the same transaction (a
 * channel that never heard the down hears no recovery). Pending and not yet due: the incident
 * closed before the escalation fell due, which the dispatcher will drop as stale. Dropped or given
 * up: heard if an attempt may have brought it to the service (a 5xx or a timeout can come after
 * the service took the message in), else never heard.
 */
export function recoveryFollowsEscalation(escalation: QueuedEscalation | undefined, now: Timestamp): boolean {
  if (escalation === undefined) return false;
  if (escalation.status === 'delivered') return true;
  if (escalation.status === 'dropped' || escalation.status === 'failed') return escalation.reached_attempts > 0;
  return escalation.status === 'pending' && Date.parse(escalation.due_at) <= Date.parse(now);
}

/**
 * The reminder after reminder `seq` (due at `dueAt`) once it was sent at `now`: one period later,
 * or, when the sending ran late past whole periods, the first period boundary after `now`, so a
 * worker that was down does not owe a burst of "still down" messages. Null when the channel no
 * longer reminds.
 */
export function nextReminder(
  dueAt: Timestamp,
  seq: number,
  everyS: number | null,
  now: Timestamp,
): ScheduledNotification | null {
  if (everyS === null) return null;
  const periodMs = everyS * 1000;
  const late = Math.max(0, Math.floor((Date.parse(now) - Date.parse(dueAt)) / periodMs));
  const steps = late + 1;
  return { reason: 'reminder', seq: seq + steps, due_at: new Date(Date.parse(dueAt) + steps * periodMs).toISOString() };
}
