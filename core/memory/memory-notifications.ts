import { channelsServing, disabledEventData } from '../channels/serving.ts';
import { EVENT_TYPES, type Channel, type Timestamp } from '../records/index.ts';
import type {
  ChannelLease,
  ChannelMessageClaim,
  ChannelMessageOutcome,
  ClaimedChannelMessage,
  NotificationStore,
} from '../store/notification-store.ts';
import type { MemoryChannels } from './memory-channels.ts';
import { iso, ms } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';

interface QueuedNotification {
  id: number;
  channelId: number;
  eventId: number;
  attempts: number;
  /** Epoch ms. */
  nextAttemptAt: number;
  state: 'pending' | 'delivered' | 'failed';
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

  async fanOutNotifications(now: Timestamp, limit: number): Promise<number> {
    const batch = this.#t.events.slice(this.#fannedOut, this.#fannedOut + limit);
    for (const event of batch) {
      for (const channelId of channelsServing(event, this.#channels.channelsOf(event.user_id))) {
        this.#queue.push({
          id: this.#nextId.notification++,
          channelId,
          eventId: event.id,
          attempts: 0,
          nextAttemptAt: ms(now),
          state: 'pending',
        });
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
      if (outcome.state === 'pending') n.nextAttemptAt = ms(outcome.next_attempt_at ?? outcome.attempted_at);
      else n.state = outcome.state === 'delivered' ? 'delivered' : 'failed';
    }
    const eventIds = [...new Set(carried.map((n) => n.eventId))].sort((a, b) => a - b);
    const types = new Set(eventIds.map((id) => this.#t.events.find((e) => e.id === id)?.type));
    await this.#channels.recordChannelAttempt(lease.channelId, {
      kind: 'events',
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
}
