/**
 * monitoring-api/engine: the workers that make the API's records monitor (docs/engine.md).
 * `createMonitoringEngine({ store })` checks what is due, records the results and announces
 * status changes; the CLI runs it as `monitoring-api worker` or `monitoring-api serve --worker`.
 */
export { createMonitoringEngine, type EngineRunSummary, type MonitoringEngine } from './monitoring-engine.ts';
export { ENGINE_DEFAULTS, resolveEngineOptions, type MonitoringEngineOptions, type ResolvedEngineOptions } from './options.ts';
export type { EngineLogger } from './logger.ts';
export type { DeviceCheck, DeviceCheckContext, DeviceCheckOptions } from './devices/check-device.ts';
export { nextCheckAt, JITTER } from './scheduler/next-check.ts';
export { DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_ZONES, normalizeZone, normalizeZones } from './dnsbl/zones.ts';
export type { DnsblResolver } from './dnsbl/resolver.ts';
export { classifyReply, type ZoneReply, type ZoneVerdict } from './dnsbl/classify.ts';
export { queryPrefix } from './dnsbl/query-name.ts';
export { ProbeFailure, type Connection, type ConnectRequest, type Connector, type HostLookup } from './net/connector.ts';
export { createGuardedConnector, type GuardedConnectorOptions } from './net/guarded-connector.ts';
export { systemLookup } from './net/system-lookup.ts';
export { normalizeDnsServer, normalizeDnsServers } from './net/dns-servers.ts';
export { createWebhookDispatcher, nextAttemptAt, RETRY_DELAYS_MS, signWebhook, webhookRequest, type WebhookDispatcher, type WebhookDispatcherOptions, type WebhookRequest } from './webhooks/index.ts';
export { checkDevice } from './devices/check-device.ts';
