/** The typed client's shape: every resource's calls (createMonitoringClient answers one). */
import type { HeartbeatClient } from './heartbeat-types.ts';
import type {
  BlacklistMonitor,
  BlacklistMonitorInput,
  ChannelClient,
  Device,
  DeviceInput,
  DeviceProbeResult,
  DnsblResult,
  LocationSummary,
  MaintenanceWindow,
  MaintenanceWindowInput,
  Me,
  MonitoredResourceClient,
  ReportsClient,
  RequestOptions,
  ResourceClient,
  StatusPageClient,
  WebhookClient,
} from './types.ts';

export interface MonitoringClient {
  me(options?: RequestOptions): Promise<Me>;
  /** `GET /locations`: where the monitoring engine checks from, by name (scope read). */
  locations(options?: RequestOptions): Promise<LocationSummary[]>;
  devices: MonitoredResourceClient<Device, DeviceInput, DeviceProbeResult>;
  blacklistMonitors: MonitoredResourceClient<BlacklistMonitor, BlacklistMonitorInput, DnsblResult>;
  /** Only the create answer, and an update with `rotate_secret`, carry the signing secret: keep it then. */
  webhooks: WebhookClient;
  /** Every answer shows a channel's secrets masked (`…` and the last four characters). */
  channels: ChannelClient;
  maintenanceWindows: ResourceClient<MaintenanceWindow, MaintenanceWindowInput>;
  /** Heartbeats (docs/heartbeats.md): `ping_url` is shown to keys with the write scope only. */
  heartbeats: HeartbeatClient;
  reports: ReportsClient;
  statusPages: StatusPageClient;
}
