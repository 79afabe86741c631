import { hostname } from 'node:os';
import {
  closesIncident,
  systemClock,
  toTimestamp,
  type ChannelMessageOutcome,
  type ChannelType,
  type ClaimedChannelMessage,
  type Clock,
  type EventItem,
  type Logger,
  type MonitoringEvent,
  type Notification,
  type NotificationIncident,
  type NotificationStore,
} from '../../core/internal.ts';
import { dispatchRound, roundLoop } from '../outbox-rounds.ts';
import type { ChannelDelivery } from './channel-delivery.ts';
import type { DeliveryVerdict } from './kind.ts';
import { CHANNEL_KINDS } from './kinds/index.ts';
import { nextAttemptAt } from './retry.ts';

/** The types whose notifications go one per message (PagerDuty: one event per incident). */
const ONE_AT_A_TIME = (Object.keys(CHANNEL_KINDS) as ChannelType[]).filter((type) => !CHANNEL_KINDS[type].groups);

/** Notifications one message carries at most: the kind lists 20 of them and counts the rest. */
const MAX_NOTIFICATIONS = 500;

/**
 * Whether a reminder or an escalation is no longer to be sent: its incident closed or was
 * acknowledged (docs/notifications.md, "Reminders, escalation and acknowledgement"). A reminder
 * whose incident the reports no longer hold is dropped too: it could not say for how long.
 * Without a way to read incidents (`incidentOf`), nothing is judged stale.
 */
function isStale(item: EventItem, judged: boolean): boolean {
  if (!judged || (item.reason !== 'reminder' && item.reason !== 'escalation')) return false;
  const incident = item.incident;
  if (incident === null) return item.reason === 'reminder';
  return incident.closed_at !== null || incident.acknowledged_at !== null;
}

/** A claimed notification, its incident read: `reached` counts its attempts that may have reached the service. */
interface QueuedItem {
  id: number;
  reached: number;
  item: EventItem;
}

/** Names an incident among every record's: its ids are unique only among its kind's (device, heartbeat). */
const incidentKey = (item: EventItem): string | null =>
  item.incident === null ? null : `${item.event.type.split('.')[0]} ${item.incident.id}`;

/**
 * The notifications of a message not to send: the stale ones, and each recovery of an incident
 * whose escalation is among them and no attempt may have brought to the service, since a channel
 * that never heard the down hears no recovery (the store drops such a recovery outside the
 * message too, in the same transaction). An escalation an attempt may have brought there
 * (ChannelSendResult.reached) may have been heard, so its recovery is sent.
 */
function notToSend(items: readonly QueuedItem[], judged: boolean): Set<number> {
  const stale = items.filter(({ item }) => isStale(item, judged));
  const unheard = new Set(
    stale
      .filter(({ item, reached }) => item.reason === 'escalation' && reached === 0)
      .map(({ item }) => incidentKey(item)),
  );
  unheard.delete(null);
  const recoveries = items.filter(
    ({ item }) => item.reason === 'event' && closesIncident(item.event.type) && unheard.has(incidentKey(item)),
  );
  return new Set([...stale, ...recoveries].map(({ id }) => id));
}

export interface ChannelDispatcherOptions {
  store: NotificationStore;
  /** Renders and sends (channel-delivery.ts), under the target policy. */
  delivery: ChannelDelivery;
  clock?: Clock;
  logger?: Pick<Logger, 'warn' | 'error'>;
  /** Told of every attempt's outcome once it is recorded (the metrics count them). */
  observe?(outcome: ChannelMessageOutcome): void;
  /** The incident an event opened or closed (incident-of.ts); without it, none. */
  incidentOf?(event: MonitoringEvent): Promise<NotificationIncident | null>;
  /** Kept with each lease, for operators. Default `host:pid`. */
  workerId?: string;
  /** Messages in flight at once, each to a different channel. Default 20. */
  concurrency?: number;
  /** A whole attempt's bound, which the lease outlives. Default 10 000 ms. */
  requestTimeoutMs?: number;
  /** Events fanned out per store call. Default 100. */
  fanOutBatch?: number;
  /** How long `start()` waits between rounds. Default 1000 ms. */
  pollIntervalMs?: number;
}

export interface ChannelDispatcher {
  /** Fans out new events, then sends every channel what is due for it; resolves when recorded. */
  runOnce(): Promise<void>;
  start(): void;
  /** Stops claiming; resolves once the messages in flight are recorded. */
  stop(): Promise<void>;
}

/**
 * Sends channels their messages (docs/notifications.md, "Delivery"), as the webhook dispatcher
 * delivers webhooks: its own loop and concurrency bound, beside the checks. It leases a channel,
 * not a notification, so what fell due together is one message, and the channel's grouping window
 * (its kind's `spacingMs`) keeps the next one back. Any number of dispatchers may share a store.
 */
export function createChannelDispatcher(options: ChannelDispatcherOptions): ChannelDispatcher {
  const { store, delivery } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? {};
  const owner = options.workerId ?? `${hostname()}:${process.pid}`;
  const concurrency = options.concurrency ?? 20;
  const leaseMs = (options.requestTimeoutMs ?? 10_000) * 3;
  const fanOutBatch = options.fanOutBatch ?? 100;
  const pollMs = options.pollIntervalMs ?? 1_000;
  const stopping = new AbortController();

  function outcomeOf(
    message: ClaimedChannelMessage,
    verdict: DeliveryVerdict,
  ): Omit<ChannelMessageOutcome, 'http_status' | 'duration_ms'> {
    const now = clock.now();
    const attempt = Math.max(0, ...message.notifications.map((n) => n.attempts)) + 1;
    const spacing = CHANNEL_KINDS[message.channel.type].spacingMs;
    const base = {
      notification_ids: message.notifications.map((n) => n.id),
      attempted_at: toTimestamp(now),
      next_attempt_at: null,
      next_message_at: toTimestamp(now + spacing),
      attempt,
      disabled_reason: null,
    };
    switch (verdict.outcome) {
      case 'delivered':
        return { ...base, state: 'delivered', error: null };
      case 'failed':
        return { ...base, state: 'failed', error: verdict.error };
      case 'disable':
        return { ...base, state: 'disabled', error: verdict.error, disabled_reason: verdict.reason };
      case 'retry': {
        const next = nextAttemptAt(attempt, now, verdict.retryAfterMs, verdict.ours);
        if (next === null) return { ...base, state: 'failed', error: verdict.error };
        // The whole channel waits: a service that said Retry-After hears nothing before it.
        const at = toTimestamp(next);
        return { ...base, state: 'pending', error: verdict.error, next_attempt_at: at, next_message_at: at };
      }
    }
  }

  async function send(claimed: ClaimedChannelMessage): Promise<void> {
    const items: QueuedItem[] = await Promise.all(
      claimed.notifications.map(async (n) => ({
        id: n.id,
        reached: n.reached_attempts ?? 0,
        item: {
          reason: n.reason,
          event: n.event,
          incident: options.incidentOf === undefined ? null : await options.incidentOf(n.event),
        },
      })),
    );
    // A reminder or escalation of an incident that closed or was acknowledged is not sent, nor
    // the recovery of an escalation that cannot have been heard.
    const stale = notToSend(items, options.incidentOf !== undefined);
    const kept = claimed.notifications.filter((n) => !stale.has(n.id));
    if (stale.size > 0) {
      const held = await store.dropChannelNotifications(claimed.lease, [...stale], kept.length === 0);
      if (!held) {
        logger.warn?.(`channel ${claimed.channel.id}: the lease was lost; another worker sends its message`);
        return;
      }
      if (kept.length === 0) return;
    }
    const message = { ...claimed, notifications: kept };
    const notification: Notification = {
      at: toTimestamp(clock.now()),
      items: items.filter(({ id }) => !stale.has(id)).map(({ item }) => item),
      total: kept.length,
    };
    const sent = await delivery.deliver(message.channel, notification);
    const outcome = {
      ...outcomeOf(message, sent.verdict),
      http_status: sent.httpStatus,
      duration_ms: sent.durationMs,
      reached: sent.reached,
    };
    const written = await store.recordChannelMessage(message.lease, outcome);
    if (!written) {
      logger.warn?.(`channel ${message.channel.id}: the lease was lost; another worker sends its message`);
      return;
    }
    options.observe?.(outcome);
    if (outcome.state === 'disabled') {
      logger.warn?.(`channel ${message.channel.id}: disabled, the service answered ${outcome.error}`);
    } else if (outcome.state === 'failed') {
      logger.warn?.(
        `channel ${message.channel.id}: gave up a message after ${outcome.attempt} attempts; last error ${outcome.error}`,
      );
    }
  }

  async function runOnce(): Promise<void> {
    await dispatchRound({
      signal: stopping.signal,
      fanOut: () => store.fanOutNotifications(toTimestamp(clock.now()), fanOutBatch),
      batch: fanOutBatch,
      concurrency,
      claim: (limit) => {
        const now = clock.now();
        return store.claimChannelMessages({
          owner,
          now: toTimestamp(now),
          limit,
          leaseUntil: toTimestamp(now + leaseMs),
          maxNotifications: MAX_NOTIFICATIONS,
          oneAtATime: ONE_AT_A_TIME,
        });
      },
      send,
      failed: (message, error) => logger.error?.(`channel ${message.channel.id}: recording a message failed`, error),
    });
  }

  const loop = roundLoop({
    stopping,
    pollMs,
    runOnce,
    failed: (error) => logger.error?.('channel dispatcher: a round failed', error),
  });
  return {
    runOnce,
    start: loop.start,
    async stop() {
      await loop.stop();
      delivery.close();
    },
  };
}
