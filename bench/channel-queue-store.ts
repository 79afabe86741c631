import type {
  ChannelLease,
  ChannelMessageClaim,
  ChannelMessageOutcome,
  ClaimedChannelMessage,
  NotificationStore,
} from '../core/index.ts';

/**
 * The notification queue of a store that costs next to nothing, as bench/engine-queue-store.ts is
 * for checks and webhook deliveries: every message it holds is due, a claim takes the next ones
 * off a queue and a record only counts. What bench/notifications-cpu.ts compares is the channel
 * dispatcher's own work (rendering, sending, judging the answer) against the webhook dispatcher's;
 * the queue's cost on a real store is bench/notifications-burst.ts's.
 */
export class ChannelQueueStore implements NotificationStore {
  readonly #messages: ClaimedChannelMessage[];
  delivered = 0;
  /** Messages whose attempt did not end `delivered`. */
  undelivered = 0;

  constructor(messages: ClaimedChannelMessage[]) {
    this.#messages = [...messages].reverse();
  }

  async fanOutNotifications(): Promise<number> {
    return 0;
  }

  async claimChannelMessages(claim: ChannelMessageClaim): Promise<ClaimedChannelMessage[]> {
    return this.#messages.splice(Math.max(0, this.#messages.length - claim.limit)).reverse();
  }

  async recordChannelMessage(_lease: ChannelLease, outcome: ChannelMessageOutcome): Promise<boolean> {
    if (outcome.state === 'delivered') this.delivered++;
    else this.undelivered++;
    return true;
  }

  /** Every message here is an event's: nothing is ever dropped. */
  async dropChannelNotifications(): Promise<boolean> {
    return true;
  }
}
