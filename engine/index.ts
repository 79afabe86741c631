/**
 * monitoring-api/engine: the workers that make the API's records monitor (docs/engine.md).
 * `createMonitoringEngine({ store })` checks what is due, records the results and announces
 * status changes; the CLI runs it as `monitoring-api worker` or `monitoring-api serve --worker`.
 * Besides the engine and its options, this entry exports the seams an embedding host may fill
 * (docs/embedding.md, "The monitoring engine"): the DNSBL resolver, the host lookup, and the device check
 * with the connector it is handed.
 */
export { createMonitoringEngine, type EngineRunSummary, type MonitoringEngine } from './monitoring-engine.ts';
export { ENGINE_DEFAULTS, type MonitoringEngineOptions } from './options.ts';
export type { EngineLogger } from './logger.ts';
export type { CheckVerdict, EngineGauges, EngineMetrics, ProbeVerdict } from './metrics.ts';
export {
  checkDevice,
  type DeviceCheck,
  type DeviceCheckContext,
  type DeviceCheckOptions,
} from './devices/check-device.ts';
export { DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_ZONES } from './dnsbl/zones.ts';
export type { DnsblResolver } from './dnsbl/resolver.ts';
export type { DnsblCode, DnsblZoneInfo } from './dnsbl/catalogue.ts';
export {
  ProbeFailure,
  type Connection,
  type ConnectRequest,
  type Connector,
  type HostLookup,
} from './net/connector.ts';
export { createWebhookSender, type WebhookSenderOptions } from './webhooks/webhook-sender.ts';
export { createChannelSender, type ChannelSenderOptions } from './channels/channel-sender.ts';
