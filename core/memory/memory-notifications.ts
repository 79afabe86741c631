import {
  CLOSER_OF,
  nextReminder,
  OPENER_OF,
  recoveryFollowsEscalation,
  recoveryNeedsEscalation,
  scheduleFor,
  type QueuedEscalation,
} from '../channels/incident-schedule.ts';
import { channelsServing, disabledEventData } from '../channels/serving.ts';
import {
  EVENT_TYPES,
  type Channel,
  type ChannelMessageKind,
  type MonitoringEvent,
  type Timestamp,
} from '../records/index.ts';
import type { Incident } from '../reports/report-records.ts';
import type {
  ChannelLease,
  ChannelMessageClaim,
  ChannelMessageOutcome,
  ClaimedChannelMessage,
  NotificationStore,
  QueuedNotificationReason,
} from '../store/notification-store.ts';
import type { MemoryChannels } from './memory-channels.ts';
import { iso, ms } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';

interface QueuedNotification {
  id: number;
  channelId: number;
  eventId: number;
  reason: QueuedNotificationReason;
  seq: number;
  attempts: number;
  /** Attempts that may have reached the service (ChannelMessageOutcome.reached). */
  reachedAttempts: number;
  /** Epoch ms: when it is next tried, and when it was scheduled. */
  nextAttemptAt: number;
  dueAt: number;
  state: 'pending' | 'delivered' | 'failed' | 'dropped';
}

/** As the Kysely queue's (stores/kysely/channels/notification-queue.ts). */
function messageKind(reasons: readonly QueuedNotificationReason[]): ChannelMessageKind {
  if (reasons.length > 0 && reasons.every((r) => r === 'reminder')) return 'reminder';
  if (reasons.length > 0 && reasons.every((r) => r === 'acknowledgement')) return 'acknowledgement';
  return 'events';
}

interface ChannelQueueState {
  lease: { token: string; expiresAt: number } | null;
  /** Epoch ms; 0 for none. */
  nextMessageAt: number;
}

/**
 * The notification queue of `MemoryStore` (core/store/notification-store.ts), over the shared
 * event outbox and the channels of memory-channels.ts. One process, so a cursor says which events
 * were fanned out.
 */
export class MemoryNotifications implements NotificationStore {
  readonly #t: MemoryTables;
  readonly #channels: MemoryChannels;
  #queue: QueuedNotification[] = [];
  /** The queue's identities (channel, event, reason, seq), as the SQL stores' unique index. */
  readonly #identities = new Set<string>();
  readonly #state = new Map<number, ChannelQueueState>();
  #fannedOut = 0;
  #nextId = { notification: 1, lease: 1 };

  constructor(tables: MemoryTables, channels: MemoryChannels) {
    this.#t = tables;
    this.#channels = channels;
  }

  #stateOf(channelId: number): ChannelQueueState {
    let state = this.#state.get(channelId);
    if (state === undefined) this.#state.set(channelId, (state = { lease: null, nextMessageAt: 0 }));
    return state;
  }

  #push(channelId: number, eventId: number, reason: QueuedNotificationReason, seq: number, dueAt: number): void {
    const identity = `${channelId} ${eventId} ${reason} ${seq}`;
    if (this.#identities.has(identity)) return;
    this.#identities.add(identity);
    const id = this.#nextId.notification++;
    this.#queue.push({
      id,
      channelId,
      eventId,
      reason,
      seq,
      attempts: 0,
      reachedAttempts: 0,
      nextAttemptAt: dueAt,
      dueAt,
      state: 'pending',
    });
  }

  /** The newest event before `closer` that opened an incident of its record. */
  #openerBefore(closer: MonitoringEvent): MonitoringEvent | undefined {
    const type = OPENER_OF[closer.type];
    const recordId = (closer.data as { id: number }).id;
    return this.#t.events.findLast(
      (e) =>
        e.id < closer.id &&
        e.user_id === closer.user_id &&
        e.type === type &&
        (e.data as { id: number }).id === recordId,
    );
  }

  /** As the Kysely queue's `escalationOf` (stores/kysely/channels/incident-notifications.ts). */
  #escalationOf(channelId: number, closer: MonitoringEvent): QueuedEscalation | undefined {
    const opener = this.#openerBefore(closer);
    const escalation = this.#queue.find(
      (n) => n.channelId === channelId && n.eventId === opener?.id && n.reason === 'escalation',
    );
    return escalation === undefined
      ? undefined
      : {
          status: escalation.state,
          due_at: new Date(escalation.dueAt).toISOString(),
          reached_attempts: escalation.reachedAttempts,
        };
  }

  /**
   * As the Kysely queue's `dropRecoveriesOf`: the pending recovery of each escalation among `ids`
   * that no attempt may have brought to the service.
   */
  #dropRecoveriesOf(channelId: number, ids: ReadonlySet<number>): void {
    const escalations = this.#queue.filter(
      (n) => ids.has(n.id) && n.channelId === channelId && n.reason === 'escalation' && n.reachedAttempts === 0,
    );
    for (const escalation of escalations) {
      const opener = this.#t.events.find((e) => e.id === escalation.eventId);
      if (opener === undefined) continue;
      const recordId = (opener.data as { id: number }).id;
      const closer = this.#t.events.find(
        (e) =>
          e.id > opener.id &&
          e.user_id === opener.user_id &&
          e.type === CLOSER_OF[opener.type] &&
          (e.data as { id: number }).id === recordId,
      );
      for (const n of this.#queue) {
        if (n.channelId === channelId && n.eventId === closer?.id && n.reason === 'event' && n.state === 'pending') {
          n.state = 'dropped';
        }
      }
    }
  }

  /**
   * Queues an acknowledgement of the open `incident` at `at` for each PagerDuty channel that was
   * delivered its trigger, that an attempt may have brought it to, or whose trigger is due and not
   * yet written (stores/kysely/channels/incident-notifications.ts says the same).
   */
  queueAcknowledgements(userId: number, incident: Incident, at: Timestamp): void {
    const device = incident.device_id !== null;
    const recordId = device ? incident.device_id : incident.heartbeat_id;
    const opener = this.#t.events.find(
      (e) =>
        e.user_id === userId &&
        e.type === (device ? 'device.down' : 'heartbeat.down') &&
        (e.data as { id: number }).id === recordId &&
        e.created_at >= incident.started_at,
    );
    if (opener === undefined) return;
    const told = new Set(
      this.#queue
        .filter(
          (n) =>
            n.eventId === opener.id &&
            (n.state === 'delivered' ||
              n.reachedAttempts > 0 ||
              (n.state === 'pending' && n.nextAttemptAt <= ms(at))) &&
            n.reason !== 'acknowledgement',
        )
        .filter((n) => this.#channels.channelById(n.channelId)?.type === 'pagerduty')
        .map((n) => n.channelId),
    );
    for (const channelId of [...told].sort((a, b) => a - b))
      this.#push(channelId, opener.id, 'acknowledgement', 0, ms(at));
  }

  async fanOutNotifications(now: Timestamp, limit: number): Promise<number> {
    const batch = this.#t.events.slice(this.#fannedOut, this.#fannedOut + limit);
    for (const event of batch) {
      const own = this.#channels.channelsOf(event.user_id);
      for (const channelId of channelsServing(event, own)) {
        const channel = own.find((c) => c.id === channelId)!;
        if (
          recoveryNeedsEscalation(event, channel) &&
          !recoveryFollowsEscalation(this.#escalationOf(channelId, event), now)
        ) {
          continue;
        }
        for (const due of scheduleFor(event, channel, now)) {
          this.#push(channelId, event.id, due.reason, due.seq, ms(due.due_at));
        }
      }
    }
    this.#fannedOut += batch.length;
    return batch.length;
  }

  async claimChannelMessages(claim: ChannelMessageClaim): Promise<ClaimedChannelMessage[]> {
    const now = ms(claim.now);
    const due = new Map<number, QueuedNotification[]>();
    for (const n of this.#queue) {
      if (n.state !== 'pending' || n.nextAttemptAt > now) continue;
      const channel = this.#channels.channelById(n.channelId);
      if (channel === undefined || !channel.is_enabled) continue;
      const state = this.#stateOf(n.channelId);
      if ((state.lease !== null && state.lease.expiresAt > now) || state.nextMessageAt > now) continue;
      const list = due.get(n.channelId) ?? [];
      const cap = claim.oneAtATime.includes(channel.type) ? 1 : claim.maxNotifications;
      if (list.length < cap) list.push(n);
      due.set(n.channelId, list);
    }
    const events = new Map(this.#t.events.map((e) => [e.id, e]));
    const out: ClaimedChannelMessage[] = [];
    for (const [channelId, list] of [...due].sort((a, b) => a[0] - b[0]).slice(0, claim.limit)) {
      const channel = this.#channels.channelById(channelId) as Channel;
      const token = `c${this.#nextId.lease++}`;
      this.#stateOf(channelId).lease = { token, expiresAt: ms(claim.leaseUntil) };
      out.push({
        lease: { channelId, token },
        channel: structuredClone({ id: channel.id, name: channel.name, type: channel.type, config: channel.config }),
        notifications: list.map((n) => ({
          id: n.id,
          attempts: n.attempts,
          reached_attempts: n.reachedAttempts,
          reason: n.reason,
          event: structuredClone(events.get(n.eventId)!),
        })),
      });
    }
    return out;
  }

  async recordChannelMessage(lease: ChannelLease, outcome: ChannelMessageOutcome): Promise<boolean> {
    const state = this.#state.get(lease.channelId);
    const channel = this.#channels.channelById(lease.channelId);
    if (channel === undefined || state === undefined || !state.lease || state.lease.token !== lease.token) return false;
    state.lease = null;
    state.nextMessageAt = outcome.next_message_at === null ? 0 : ms(outcome.next_message_at);
    const ids = new Set(outcome.notification_ids);
    const carried = this.#queue.filter((n) => ids.has(n.id) && n.channelId === lease.channelId);
    for (const n of carried) {
      n.attempts++;
      if (outcome.reached === true) n.reachedAttempts++;
      if (outcome.state === 'pending') n.nextAttemptAt = ms(outcome.next_attempt_at ?? outcome.attempted_at);
      else n.state = outcome.state === 'delivered' ? 'delivered' : 'failed';
      if (n.reason !== 'reminder' || (outcome.state !== 'delivered' && outcome.state !== 'failed')) continue;
      const every = this.#channels.channelById(lease.channelId)?.remind_every_s ?? null;
      const next = nextReminder(new Date(n.dueAt).toISOString(), n.seq, every, iso(outcome.attempted_at));
      if (next !== null) this.#push(lease.channelId, n.eventId, 'reminder', next.seq, ms(next.due_at));
    }
    // An escalation given up that cannot have been heard: its incident's recovery is not told either.
    if (outcome.state === 'failed') this.#dropRecoveriesOf(lease.channelId, ids);
    const eventIds = [...new Set(carried.map((n) => n.eventId))].sort((a, b) => a - b);
    const types = new Set(eventIds.map((id) => this.#t.events.find((e) => e.id === id)?.type));
    await this.#channels.recordChannelAttempt(lease.channelId, {
      kind: messageKind(carried.map((n) => n.reason)),
      event_ids: eventIds,
      event_types: EVENT_TYPES.filter((type) => types.has(type)),
      attempt: outcome.attempt,
      attempted_at: iso(outcome.attempted_at),
      http_status: outcome.http_status,
      error: outcome.error,
      duration_ms: outcome.duration_ms,
    });
    if (outcome.state === 'disabled') {
      const owner = this.#channels.disable(lease.channelId, outcome.disabled_reason ?? 'disabled');
      if (owner !== undefined) {
        this.#t.keepEvents(owner.userId, [
          {
            type: 'channel.disabled',
            created_at: iso(outcome.attempted_at),
            data: disabledEventData(owner.record),
          },
        ]);
      }
    }
    return true;
  }

  async dropChannelNotifications(lease: ChannelLease, ids: readonly number[], release: boolean): Promise<boolean> {
    const state = this.#state.get(lease.channelId);
    if (state === undefined || !state.lease || state.lease.token !== lease.token) return false;
    if (release) state.lease = null;
    const dropped = new Set(ids);
    this.#dropRecoveriesOf(lease.channelId, dropped);
    for (const n of this.#queue) {
      if (dropped.has(n.id) && n.channelId === lease.channelId && n.state === 'pending') n.state = 'dropped';
    }
    return true;
  }
}
