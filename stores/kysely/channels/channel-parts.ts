import type { ChannelStore, NotificationStore, ReportStore } from '../../../core/index.ts';
import { acknowledgeIncident } from '../reports/incident-acknowledgement.ts';
import type { StoreContext } from '../store-context.ts';
import { StatusPageParts } from '../status-pages/status-page-parts.ts';
import { KyselyChannels } from './channel-store.ts';
import { KyselyNotifications } from './notification-queue.ts';

/**
 * KyselyStore's channels (docs/notifications.md) and their notification queue: the methods of
 * KyselyChannels and KyselyNotifications, bound to them here, with the acknowledgement of an
 * incident (which queues notifications), in a class KyselyStore extends so that its file holds the
 * other parts.
 */
export class ChannelParts extends StatusPageParts implements ChannelStore, NotificationStore {
  readonly createChannel: ChannelStore['createChannel'];
  readonly listChannels: ChannelStore['listChannels'];
  readonly getChannel: ChannelStore['getChannel'];
  readonly updateChannel: ChannelStore['updateChannel'];
  readonly deleteChannel: ChannelStore['deleteChannel'];
  readonly ownedChannelIds: ChannelStore['ownedChannelIds'];
  readonly channelsServing: ChannelStore['channelsServing'];
  readonly listChannelAttempts: ChannelStore['listChannelAttempts'];
  readonly recordChannelAttempt: ChannelStore['recordChannelAttempt'];
  readonly deleteChannelAttemptsBefore: ChannelStore['deleteChannelAttemptsBefore'];
  readonly fanOutNotifications: NotificationStore['fanOutNotifications'];
  readonly claimChannelMessages: NotificationStore['claimChannelMessages'];
  readonly recordChannelMessage: NotificationStore['recordChannelMessage'];
  readonly dropChannelNotifications: NotificationStore['dropChannelNotifications'];
  readonly acknowledgeIncident: ReportStore['acknowledgeIncident'];

  constructor(ctx: StoreContext) {
    super(ctx);
    const channels = new KyselyChannels(ctx);
    this.createChannel = channels.createChannel.bind(channels);
    this.listChannels = channels.listChannels.bind(channels);
    this.getChannel = channels.getChannel.bind(channels);
    this.updateChannel = channels.updateChannel.bind(channels);
    this.deleteChannel = channels.deleteChannel.bind(channels);
    this.ownedChannelIds = channels.ownedChannelIds.bind(channels);
    this.channelsServing = channels.channelsServing.bind(channels);
    this.listChannelAttempts = channels.listChannelAttempts.bind(channels);
    this.recordChannelAttempt = channels.recordChannelAttempt.bind(channels);
    this.deleteChannelAttemptsBefore = channels.deleteChannelAttemptsBefore.bind(channels);
    const queue = new KyselyNotifications(ctx);
    this.fanOutNotifications = queue.fanOutNotifications.bind(queue);
    this.claimChannelMessages = queue.claimChannelMessages.bind(queue);
    this.recordChannelMessage = queue.recordChannelMessage.bind(queue);
    this.dropChannelNotifications = queue.dropChannelNotifications.bind(queue);
    this.acknowledgeIncident = (userId, incidentId, keyId, at) =>
      acknowledgeIncident(ctx, userId, incidentId, keyId, at);
  }
}
