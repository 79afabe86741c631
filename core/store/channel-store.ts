import type { ResultsPage } from './monitoring-store.ts';
import type { Channel, ChannelAttempt, NewChannel, Timestamp } from '../records/index.ts';
import type { PageRequest, RecordChange, UpdateResult } from './store-calls.ts';

/**
 * What channels need of a store (docs/notifications.md): the resource, which records each channel
 * serves, and its delivery attempts. `Store` extends it.
 *
 * A store keeps and answers a channel's `config` whole, secrets included: the API masks them in
 * every answer, and the engine sends with them.
 */
export interface ChannelStore {
  /** Channels have no duplicates: every create makes one. */
  createChannel(userId: number, channel: NewChannel): Promise<Channel>;
  /** Ascending by id. */
  listChannels(userId: number, page: PageRequest): Promise<Channel[]>;
  /** Undefined when the channel does not exist or belongs to another user. */
  getChannel(userId: number, id: number): Promise<Channel | undefined>;
  /** Changes a channel as `updateWebhook` changes a webhook: compare-and-set on `change.fields`, effect `none`. */
  updateChannel(userId: number, id: number, change: RecordChange<Channel, NewChannel>): Promise<UpdateResult<Channel>>;
  /**
   * False when the channel does not exist or belongs to another user. Its attempts go with it, and
   * its id leaves the `channel_ids` of every device and blacklist monitor that names it, in the
   * same transaction: a list never names a channel that is gone.
   */
  deleteChannel(userId: number, id: number): Promise<boolean>;
  /** Of `ids`, those that are channels of the user. */
  ownedChannelIds(userId: number, ids: readonly number[]): Promise<number[]>;
  /**
   * The channels a record of the user tells of its events, ascending by id: those of
   * `channelIds` (a record's `channel_ids`) that exist, or for null every channel of the user with
   * `is_default`. Disabled ones included: the caller judges `is_enabled` and `events`.
   */
  channelsServing(userId: number, channelIds: readonly number[] | null): Promise<Channel[]>;
  /**
   * A channel's delivery attempts, newest first, below `beforeId` when given; undefined when the
   * channel does not exist or is another user's.
   */
  listChannelAttempts(userId: number, id: number, page: ResultsPage): Promise<ChannelAttempt[] | undefined>;
  /**
   * Writes one attempt to send a message to a channel, and the channel's `last_delivery_at`,
   * `last_delivery_status` (`delivered` when `attempt.error` is null, else `failing`),
   * `last_delivery_error` and `failing_since` (set at the first failure of a run, cleared by a
   * delivery), in one transaction. The newest attempt wins: one that ended before the channel's
   * `last_delivery_at` is kept in the list and leaves those fields alone. False (nothing written)
   * when the channel no longer exists.
   */
  recordChannelAttempt(channelId: number, attempt: NewChannelAttempt): Promise<boolean>;
  /**
   * Deletes at most `limit` attempts that ended before `before`, smallest id first, and says how
   * many, as `deleteWebhookAttemptsBefore` does. Optional: a store without it keeps every attempt.
   */
  deleteChannelAttemptsBefore?(before: Timestamp, limit: number): Promise<number>;
}

/** One attempt as the sender hands it to the store; the store gives it an id. */
export type NewChannelAttempt = Omit<ChannelAttempt, 'id'>;
