import type { ResultsPage } from '../store/monitoring-store.ts';
import type { ChannelStore, NewChannelAttempt } from '../store/channel-store.ts';
import type { Channel, ChannelAttempt, NewChannel, Timestamp } from '../records/index.ts';
import type { PageRequest, RecordChange, UpdateResult } from '../store/store.ts';
import { MemoryAttempts, recordLastDelivery } from './memory-attempts.ts';
import { changeNow, iso, withChangedFields } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';

interface StoredChannel {
  userId: number;
  record: Channel;
}

/**
 * The channels part of `MemoryStore` (memory-store.ts): the resource, its delivery attempts, and
 * the devices', blacklist monitors' and heartbeats' `channel_ids` that a delete edits.
 */
export class MemoryChannels implements ChannelStore {
  readonly #t: MemoryTables;
  readonly #channels = new Map<number, StoredChannel>();
  readonly #attempts = new MemoryAttempts<ChannelAttempt>();
  #nextChannelId = 1;

  constructor(tables: MemoryTables) {
    this.#t = tables;
  }

  #owned(userId: number, id: number): StoredChannel | undefined {
    const row = this.#channels.get(id);
    return row?.userId === userId ? row : undefined;
  }

  /** The user's channels, for the notification queue (memory-notifications.ts); not copies. */
  channelsOf(userId: number): Channel[] {
    return [...this.#channels.values()].filter((row) => row.userId === userId).map((row) => row.record);
  }

  /** A channel whoever owns it; not a copy. */
  channelById(id: number): Channel | undefined {
    return this.#channels.get(id)?.record;
  }

  /** Disables a channel for `reason`; its owner and the channel as it is now (a copy), or undefined when gone. */
  disable(id: number, reason: string): { userId: number; record: Channel } | undefined {
    const row = this.#channels.get(id);
    if (row === undefined) return undefined;
    row.record.is_enabled = false;
    row.record.disabled_reason = reason;
    return { userId: row.userId, record: structuredClone(row.record) };
  }

  async createChannel(userId: number, channel: NewChannel): Promise<Channel> {
    const record: Channel = { id: this.#nextChannelId++, ...structuredClone(channel) };
    this.#channels.set(record.id, { userId, record });
    return structuredClone(record);
  }

  async listChannels(userId: number, page: PageRequest): Promise<Channel[]> {
    const out: Channel[] = [];
    for (const [id, row] of this.#channels) {
      if (id <= page.afterId || row.userId !== userId) continue;
      out.push(structuredClone(row.record));
      if (out.length >= page.limit) break;
    }
    return out;
  }

  async getChannel(userId: number, id: number): Promise<Channel | undefined> {
    const row = this.#owned(userId, id);
    return row && structuredClone(row.record);
  }

  async updateChannel(
    userId: number,
    id: number,
    change: RecordChange<Channel, NewChannel>,
  ): Promise<UpdateResult<Channel>> {
    const row = this.#owned(userId, id);
    if (row === undefined) return undefined;
    const now = changeNow(row.record, change);
    if (now === 'stale') return { stale: true };
    if (now !== 'unchanged') row.record = withChangedFields(row.record, now);
    return { updated: structuredClone(row.record) };
  }

  async deleteChannel(userId: number, id: number): Promise<boolean> {
    if (this.#owned(userId, id) === undefined) return false;
    this.#channels.delete(id);
    this.#attempts.dropOwner(id);
    // Only the user's own records can name it (their ids are judged on every write).
    for (const rows of [this.#t.devices, this.#t.monitors]) {
      for (const row of rows.values()) {
        const ids = row.record.channel_ids;
        if (row.userId === userId && ids?.includes(id)) row.record.channel_ids = ids.filter((x) => x !== id);
      }
    }
    for (const holder of this.#t.channelListHolders) holder.dropChannel(userId, id);
    return true;
  }

  async ownedChannelIds(userId: number, ids: readonly number[]): Promise<number[]> {
    return ids.filter((id) => this.#owned(userId, id) !== undefined);
  }

  async channelsServing(userId: number, channelIds: readonly number[] | null): Promise<Channel[]> {
    const out: Channel[] = [];
    for (const { userId: owner, record } of this.#channels.values()) {
      if (owner !== userId) continue;
      if (channelIds === null ? record.is_default : channelIds.includes(record.id)) out.push(structuredClone(record));
    }
    return out;
  }

  async listChannelAttempts(userId: number, id: number, page: ResultsPage): Promise<ChannelAttempt[] | undefined> {
    if (this.#owned(userId, id) === undefined) return undefined;
    return this.#attempts.newest(id, page);
  }

  async recordChannelAttempt(channelId: number, attempt: NewChannelAttempt): Promise<boolean> {
    const row = this.#channels.get(channelId);
    if (row === undefined) return false;
    const at = iso(attempt.attempted_at);
    this.#attempts.add(channelId, { ...attempt, attempted_at: at });
    recordLastDelivery(row.record, at, attempt.error, attempt.error === null);
    return true;
  }

  async deleteChannelAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#attempts.deleteBefore(before, limit);
  }
}
