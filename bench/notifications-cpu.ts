import type { ClaimedChannelMessage, ClaimedDelivery, EventData, MonitoringEvent } from '../core/index.ts';
import { ChannelQueueStore } from './channel-queue-store.ts';
import {
  channelDeliveryFrom,
  createChannelDispatcher,
  createGuardedConnector,
  createWebhookDispatcher,
} from './compiled.ts';
import { QueueStore } from './engine-queue-store.ts';
import { paired, timed, type PairedResult, type Timed } from './engine-pairs.ts';
import { benchMonitor, noLookup } from './engine-records.ts';

/** Both dispatchers' default: messages in flight at once, each to its own endpoint. */
const CONCURRENCY = 20;

/** Event `i`: a blacklist monitor listed, as bench/engine-webhooks.ts delivers them. */
export function listedEvent(id: number, channelIds: number[] | null = null): MonitoringEvent {
  const data: EventData = {
    ...benchMonitor(id),
    channel_ids: channelIds,
    last_status: 'listed',
    listed_on: ['zen.spamhaus.org'],
    previous_status: 'clean',
    status: 'listed',
  };
  return { id, type: 'blacklist.listed', user_id: 1, created_at: '2026-01-01T00:00:00.000Z', data };
}

/**
 * CPU per delivered chat message: the engine's channel dispatcher (`runOnce()`) sending `count`
 * Slack messages of one event each to the fake Slack (test/support/fakes/slack.ts, in the targets'
 * process), over 20 channels; against the webhook dispatcher delivering the same events, signed,
 * to the loopback receiver over 20 endpoints. Both go through the guarded connector, a connection
 * per message, 20 in flight, on a store that costs next to nothing; only this process's CPU counts.
 */
export function benchChatMessages(ports: { slack: number; receiver: number }, count: number, rounds: number) {
  const events = Array.from({ length: count }, (_, i) => listedEvent(i + 1));
  const connector = () =>
    createGuardedConnector({ lookup: noLookup, allowPrivateTargets: true, lookupTimeoutMs: 1_000 });

  const chat = async (): Promise<Timed> => {
    const messages: ClaimedChannelMessage[] = events.map((event, i) => ({
      lease: { channelId: (i % 20) + 1, token: `t${i}` },
      channel: {
        id: (i % 20) + 1,
        name: `ops ${i % 20}`,
        type: 'slack',
        config: { webhook_url: `http://127.0.0.1:${ports.slack}/services/T0/B${i % 20}/x` },
      },
      notifications: [{ id: i + 1, attempts: 0, reason: 'event', event }],
    }));
    const store = new ChannelQueueStore(messages);
    const delivery = channelDeliveryFrom({ allowPrivateTargets: true, lookup: noLookup, timeoutMs: 10_000 });
    const dispatcher = createChannelDispatcher({ store, delivery, concurrency: CONCURRENCY });
    const run = await timed(count, () => dispatcher.runOnce());
    if (store.delivered !== count) throw new Error(`channels: ${store.delivered} delivered, ${store.undelivered} not`);
    return run;
  };

  const webhooks = async (): Promise<Timed> => {
    const deliveries: ClaimedDelivery[] = events.map((event, i) => ({
      lease: { id: i + 1, token: 't', owner: 'bench', expires_at: '2100-01-01T00:00:00.000Z' },
      attempts: 0,
      webhook: {
        id: (i % 20) + 1,
        url: `http://127.0.0.1:${ports.receiver}/hooks/${i % 20}`,
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      },
      event,
    }));
    const store = new QueueStore({ deliveries });
    const dispatcher = createWebhookDispatcher({ store, connector: connector(), concurrency: CONCURRENCY });
    const run = await timed(count, () => dispatcher.runOnce());
    if (store.delivered !== count) throw new Error(`webhooks: ${store.delivered} delivered, ${store.undelivered} not`);
    return run;
  };

  // `paired`'s "engine" is the chat message, its baseline ("bare") the webhook delivery.
  return paired(rounds, chat, webhooks) satisfies Promise<PairedResult>;
}
