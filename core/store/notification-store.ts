import type { ChannelType, MonitoringEvent, Timestamp } from '../records/index.ts';
import type { ChannelEndpoint } from '../channel-sender.ts';
import type { NotificationReason } from '../channels/notification.ts';

/** Why a queued notification is sent (a test message is never queued). */
export type QueuedNotificationReason = Exclude<NotificationReason, 'test'>;

/**
 * The notification queue (docs/notifications.md, "Delivery"): what the engine's channel
 * dispatcher needs of a store. Events reach it from the outbox by `fanOutNotifications`, as
 * webhooks' deliveries do, one notification per event and channel that serves it; the dispatcher
 * then leases a channel, not a notification, and sends everything due for it as one message
 * (docs/notifications.md, "Grouping"). `Store` extends it.
 */
export interface NotificationStore {
  /**
   * Turns outbox events not yet fanned out into notifications, at most `limit` events: one for
   * each channel that serves the event's record (its `channel_ids`, or for null the user's
   * `is_default` channels; for `channel.disabled`, each other channel of the user), enabled,
   * subscribed to the type, created at or before the event, and, for a recovery, with
   * `send_recovery`. Due at `now`, but for an event that opens an incident as
   * core/channels/incident-schedule.ts says: an escalation instead of the event for a channel with
   * `escalate_after_s`, and a first reminder for one with `remind_every_s`; a recovery reaches an
   * escalating channel only when its escalation was delivered or is pending and due (it may be on
   * its way under the channel's lease): `recoveryFollowsEscalation` there. Idempotent, and safe
   * from several workers at once. Answers how many events it handled.
   */
  fanOutNotifications(now: Timestamp, limit: number): Promise<number>;

  /**
   * Leases up to `claim.limit` channels that are enabled, not leased (or whose lease ran out),
   * past their grouping window (`next_message_at`), and have a pending notification due at
   * `claim.now`; each comes with its due notifications, oldest first: at most
   * `claim.maxNotifications`, and only the oldest one for a type of `claim.oneAtATime`. No two
   * concurrent claims get the same channel.
   */
  claimChannelMessages(claim: ChannelMessageClaim): Promise<ClaimedChannelMessage[]>;

  /**
   * Writes a message's outcome, only while `lease` is still the channel's (else false, nothing
   * written), in one transaction: its notifications' state and counts of attempts (and for each
   * reminder delivered or given up, the channel's next one; for an escalation given up that no
   * attempt may have brought to the service, the channel's pending recovery of its incident
   * dropped), a row of the channel's attempts and
   * its `last_delivery_*` and `failing_since` (as `recordChannelAttempt`), the channel's grouping
   * window, the lease's release; for `disabled`, the channel's `is_enabled: false` and
   * `disabled_reason` and a `channel.disabled` event in the outbox.
   */
  recordChannelMessage(lease: ChannelLease, outcome: ChannelMessageOutcome): Promise<boolean>;

  /**
   * Drops notifications of a claimed message that are not to be sent (a reminder or escalation
   * whose incident closed or was acknowledged), only while `lease` is still the channel's (else
   * false, nothing written). A dropped escalation that no attempt may have brought to the service
   * (`reached_attempts` 0) takes with it, in the same transaction, the channel's pending recovery
   * of its incident (the record's first closing event after the one that opened it), in this
   * message or not; one that may have been heard keeps it. With `release`, the lease is released
   * too, the grouping window kept.
   */
  dropChannelNotifications(lease: ChannelLease, ids: readonly number[], release: boolean): Promise<boolean>;
}

export interface ChannelMessageClaim {
  owner: string;
  now: Timestamp;
  limit: number;
  leaseUntil: Timestamp;
  /** Notifications one message carries at most; the rest wait for the next message. */
  maxNotifications: number;
  /** Types whose notifications go one per message (PagerDuty: one event per incident). */
  oneAtATime: readonly ChannelType[];
}

export interface ChannelLease {
  channelId: number;
  /** Unique to one claim. */
  token: string;
}

/** A leased channel and what is due for it. */
export interface ClaimedChannelMessage {
  lease: ChannelLease;
  channel: ChannelEndpoint;
  /**
   * Oldest first; `attempts` is how many attempts each was part of before, `reached_attempts` how
   * many of them may have reached the service (ChannelMessageOutcome.reached; absent: 0). A
   * reminder, escalation or acknowledgement carries the event that opened its incident.
   */
  notifications: {
    id: number;
    attempts: number;
    reached_attempts?: number;
    reason: QueuedNotificationReason;
    event: MonitoringEvent;
  }[];
}

/**
 * `delivered`; `pending`: tried again at `next_attempt_at`; `failed`: given up (the service refused
 * it, or retries ran out); `disabled`: the service says the channel is gone (`disabled_reason`).
 */
export type ChannelMessageState = 'delivered' | 'pending' | 'failed' | 'disabled';

export interface ChannelMessageOutcome {
  /** The notifications the message carried. */
  notification_ids: number[];
  state: ChannelMessageState;
  /** When the attempt ended. */
  attempted_at: Timestamp;
  /** Required when `state` is `pending`. */
  next_attempt_at: Timestamp | null;
  /** The channel gets no message before it (its grouping window); null for none. */
  next_message_at: Timestamp | null;
  /** 1 for a message's first attempt. */
  attempt: number;
  http_status: number | null;
  /** Null when delivered. */
  error: string | null;
  duration_ms: number;
  /** With `disabled`: `http_404` and the like. */
  disabled_reason: string | null;
  /**
   * Whether the message may have reached the service: delivered, or failed after the service may
   * have taken it in (a 5xx, or no answer to a request written whole). Absent: false.
   */
  reached?: boolean;
}
