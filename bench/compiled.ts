/**
 * The package as an operator runs it: the compiled engine and store in dist/ (bench/run.ts builds
 * it first when it is stale), as the API's figures are taken on dist/cli/main.js. Typed by the
 * sources, which dist/ is compiled from.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ChannelDispatcher from '../engine/channels/channel-dispatcher.ts';
import type * as ChannelSender from '../engine/channels/channel-sender.ts';
import type * as Engine from '../engine/index.ts';
import type * as GuardedConnector from '../engine/net/guarded-connector.ts';
import type * as Webhooks from '../engine/webhooks/index.ts';
import type * as KyselyStore from '../stores/kysely/index.ts';
import { ROOT } from '../test/support/root.ts';

const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(ROOT, path)).href)) as T;
const engine = await load<typeof Engine>('dist/engine/index.js');
const connector = await load<typeof GuardedConnector>('dist/engine/net/guarded-connector.js');
const webhooks = await load<typeof Webhooks>('dist/engine/webhooks/index.js');
const store = await load<typeof KyselyStore>('dist/stores/kysely/index.js');
const channelDispatcher = await load<typeof ChannelDispatcher>('dist/engine/channels/channel-dispatcher.js');
const channelSender = await load<typeof ChannelSender>('dist/engine/channels/channel-sender.js');

export const { createMonitoringEngine, ENGINE_DEFAULTS } = engine;
export const { createGuardedConnector } = connector;
export const { createWebhookDispatcher, webhookRequest } = webhooks;
export const { migrateToLatest, openKyselyStore } = store;
export const { createChannelDispatcher } = channelDispatcher;
export const { channelDeliveryFrom } = channelSender;
