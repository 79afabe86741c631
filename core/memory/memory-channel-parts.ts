import type { Timestamp } from '../records/common.ts';
import type { Channel, ChannelAttempt, NewChannel } from '../records/index.ts';
import type { IncidentAcknowledgement } from '../reports/report-records.ts';
import type { NewChannelAttempt } from '../store/channel-store.ts';
import type { ResultsPage } from '../store/monitoring-store.ts';
import type {
  ChannelLease,
  ChannelMessageClaim,
  ChannelMessageOutcome,
  ClaimedChannelMessage,
} from '../store/notification-store.ts';
import type { PageRequest, RecordChange, UpdateResult } from '../store/store-calls.ts';
import { MemoryChannels } from './memory-channels.ts';
import { MemoryNotifications } from './memory-notifications.ts';
import { MemoryStatusPages } from './memory-status-pages.ts';
import type { MemoryTables } from './memory-tables.ts';

/**
 * MemoryStore's channels and their attempts (memory-channels.ts) and their notification queue
 * over the event outbox (memory-notifications.ts), with the acknowledgement of an incident (which
 * queues notifications): a class MemoryStore extends, so that its file holds the other parts; it
 * hands each call to its part.
 */
export class MemoryChannelParts extends MemoryStatusPages {
  readonly #tables: MemoryTables;
  readonly #channels: MemoryChannels;
  readonly #notifications: MemoryNotifications;

  constructor(tables: MemoryTables) {
    super(tables);
    this.#tables = tables;
    this.#channels = new MemoryChannels(tables);
    this.#notifications = new MemoryNotifications(tables, this.#channels);
  }

  createChannel(userId: number, channel: NewChannel): Promise<Channel> {
    return this.#channels.createChannel(userId, channel);
  }
  listChannels(userId: number, req: PageRequest): Promise<Channel[]> {
    return this.#channels.listChannels(userId, req);
  }
  getChannel(userId: number, id: number): Promise<Channel | undefined> {
    return this.#channels.getChannel(userId, id);
  }
  updateChannel(userId: number, id: number, change: RecordChange<Channel, NewChannel>): Promise<UpdateResult<Channel>> {
    return this.#channels.updateChannel(userId, id, change);
  }
  deleteChannel(userId: number, id: number): Promise<boolean> {
    return this.#channels.deleteChannel(userId, id);
  }
  ownedChannelIds(userId: number, ids: readonly number[]): Promise<number[]> {
    return this.#channels.ownedChannelIds(userId, ids);
  }
  channelsServing(userId: number, channelIds: readonly number[] | null): Promise<Channel[]> {
    return this.#channels.channelsServing(userId, channelIds);
  }
  listChannelAttempts(userId: number, id: number, page: ResultsPage): Promise<ChannelAttempt[] | undefined> {
    return this.#channels.listChannelAttempts(userId, id, page);
  }
  recordChannelAttempt(channelId: number, attempt: NewChannelAttempt): Promise<boolean> {
    return this.#channels.recordChannelAttempt(channelId, attempt);
  }
  deleteChannelAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#channels.deleteChannelAttemptsBefore(before, limit);
  }

  // The notification queue (memory-notifications.ts).
  fanOutNotifications(now: Timestamp, limit: number): Promise<number> {
    return this.#notifications.fanOutNotifications(now, limit);
  }
  claimChannelMessages(claim: ChannelMessageClaim): Promise<ClaimedChannelMessage[]> {
    return this.#notifications.claimChannelMessages(claim);
  }
  recordChannelMessage(lease: ChannelLease, outcome: ChannelMessageOutcome): Promise<boolean> {
    return this.#notifications.recordChannelMessage(lease, outcome);
  }
  dropChannelNotifications(lease: ChannelLease, ids: readonly number[], release: boolean): Promise<boolean> {
    return this.#notifications.dropChannelNotifications(lease, ids, release);
  }

  async acknowledgeIncident(
    userId: number,
    incidentId: number,
    keyId: number,
    at: Timestamp,
  ): Promise<IncidentAcknowledgement | undefined> {
    const answer = this.#tables.reports.acknowledge(userId, incidentId, keyId, at);
    if (answer?.acknowledged === true && answer.incident.resolved_at === null) {
      this.#notifications.queueAcknowledgements(userId, answer.incident, at);
    }
    return answer;
  }
}
