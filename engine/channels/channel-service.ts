import type { NotificationStore } from '../../core/internal.ts';
import type { EngineLogger } from '../logger.ts';
import type { ResolvedEngineOptions } from '../options.ts';
import type { EngineService } from '../service.ts';
import { createChannelDispatcher } from './channel-dispatcher.ts';
import { channelDeliveryFrom } from './channel-sender.ts';
import { incidentOf, type IncidentReader } from './incident-of.ts';

/**
 * The engine's channel messages (docs/notifications.md, "Delivery"): a dispatcher over the store's
 * notification queue, sending through the same kinds, target policy, DNS servers and trusted CAs
 * as `POST /channels/test`. Undefined for a store without the queue.
 */
export function channelMessages(resolved: ResolvedEngineOptions, logger: EngineLogger): EngineService | undefined {
  const { store, clock } = resolved;
  if (
    store.fanOutNotifications === undefined ||
    store.claimChannelMessages === undefined ||
    store.recordChannelMessage === undefined
  )
    return undefined;
  const queue = store as NotificationStore;
  const delivery = channelDeliveryFrom({
    allowPrivateTargets: resolved.allowPrivateTargets,
    dnsServers: resolved.dnsServers,
    ...(resolved.lookup === undefined ? {} : { lookup: resolved.lookup }),
    trustedCa: resolved.trustedCa,
    clock,
    ...resolved.channels,
  });
  const dispatcher = createChannelDispatcher({
    store: queue,
    delivery,
    clock,
    logger,
    workerId: resolved.workerId,
    pollIntervalMs: resolved.pollIntervalMs,
    // The reports' incidents, where the store keeps them: a recovery then closes what its down opened.
    ...(hasIncidents(store) ? { incidentOf: (event) => incidentOf(store, event) } : {}),
    ...(resolved.metrics.channelMessage === undefined
      ? {}
      : { observe: resolved.metrics.channelMessage.bind(resolved.metrics) }),
  });
  return { name: 'channel messages', ...dispatcher };
}

function hasIncidents(store: object): store is IncidentReader {
  return typeof (store as Partial<IncidentReader>).listIncidents === 'function';
}
