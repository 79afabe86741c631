import type {
  BlacklistCheckOutcome,
  ClaimRequest,
  ClaimedBlacklistMonitor,
  ClaimedDevice,
  DeviceCheckOutcome,
  MonitoredKind,
  RecordedCheck,
  ResultsPage,
} from '../store/monitoring-store.ts';
import type {
  ApiKey,
  BlacklistMonitor,
  CheckResult,
  CreatedWebhook,
  Device,
  HeartbeatPing,
  LocationSummary,
  NewApiKey,
  NewBlacklistMonitor,
  NewDevice,
  NewHeartbeat,
  NewMaintenanceWindow,
  NewWebhook,
  ReceivedPing,
  StoredHeartbeat,
  StoredMaintenanceWindow,
  Timestamp,
  User,
  Webhook,
  WebhookAttempt,
  WorkerHeartbeat,
} from '../records/index.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LISTED_LOCATION_MS, summarizeLocations, type StoredHeartbeat as StoredWorkerBeat } from '../locations.ts';
import type {
  CheckRequestResult,
  CreateResult,
  PageRequest,
  RecordChange,
  Store,
  UpdateResult,
} from '../store/store.ts';
import type { WebhookEndpoint } from '../webhook-sender.ts';
import type {
  ClaimedDelivery,
  DeliveryClaimRequest,
  DeliveryLease,
  DeliveryOutcome,
  WebhookChange,
} from '../store/webhook-store.ts';
import type { ActiveMaintenance, OwnedMaintenanceWindow } from '../store/maintenance-store.ts';
import type {
  ClaimedHeartbeat,
  HeartbeatChange,
  HeartbeatLateOutcome,
  HeartbeatTimeline,
} from '../store/heartbeat-store.ts';
import type { HeartbeatTimelineState } from '../heartbeats/heartbeat-state.ts';
import type {
  ClosedSeriesDays,
  Incident,
  IncidentQuery,
  ListingPeriod,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  StatusTimeline,
  StatusTotals,
} from '../reports/report-records.ts';
import { MemoryAccess } from './memory-access.ts';
import { MemoryChannelParts } from './memory-channel-parts.ts';
import { MemoryChecks } from './memory-checks.ts';
import { MemoryHeartbeats } from './memory-heartbeats.ts';
import { MemoryMaintenance } from './memory-maintenance.ts';
import { MemoryRecords } from './memory-records.ts';
import { MemoryTables } from './memory-tables.ts';
import { MemoryWebhooks } from './memory-webhooks.ts';

/**
 * A store in this process's memory: for tests, examples and embedding without a database.
 * It returns copies, so callers cannot change what it holds.
 *
 * One part a resource, over the tables they share (memory-tables.ts): users and keys
 * (memory-access.ts), devices and blacklist monitors (memory-records.ts), the engine's checks
 * (memory-checks.ts), maintenance windows (memory-maintenance.ts), webhooks and their deliveries
 * (memory-webhooks.ts), reports (memory-reports.ts) and heartbeats (memory-heartbeats.ts); this
 * class hands each call to its part. The channels' part (memory-channel-parts.ts) is the class it
 * extends, and the status pages' (memory-status-pages.ts) the one that extends, as the Kysely
 * store's (stores/kysely/kysely-store.ts).
 */
export class MemoryStore extends MemoryChannelParts implements Store {
  readonly #tables: MemoryTables;
  readonly #access = new MemoryAccess();
  readonly #records: MemoryRecords;
  readonly #checks: MemoryChecks;
  readonly #maintenance: MemoryMaintenance;
  readonly #heartbeatsPart: MemoryHeartbeats;
  /** Webhooks and their deliveries, over the event outbox. */
  readonly #webhooks: MemoryWebhooks;
  /** Worker heartbeats by worker id. */
  readonly #heartbeats = new Map<string, StoredWorkerBeat>();

  constructor(options: { clock?: Clock } = {}) {
    const tables = new MemoryTables(options.clock ?? systemClock);
    super(tables);
    this.#tables = tables;
    this.#records = new MemoryRecords(tables);
    this.#checks = new MemoryChecks(tables);
    this.#maintenance = new MemoryMaintenance(tables);
    this.#heartbeatsPart = new MemoryHeartbeats(tables);
    this.#webhooks = new MemoryWebhooks(() => tables.events);
  }

  // Reports (memory-reports.ts): told of every status and listings change where this store makes it.
  async deviceStatusTotals(userId: number, deviceId: number, range: ReportRange): Promise<StatusTotals | undefined> {
    if (this.#tables.devices.get(deviceId)?.userId !== userId) return undefined;
    return this.#tables.reports.statusTotals(deviceId, range);
  }
  async statusTimelines(userId: number, deviceIds: readonly number[], range: ReportRange): Promise<StatusTimeline[]> {
    return [...new Set(deviceIds)]
      .filter((id) => this.#tables.devices.get(id)?.userId === userId)
      .sort((a, b) => a - b)
      .map((id) => this.#tables.reports.timeline(id, range));
  }
  async listResponseTimes(
    userId: number,
    deviceId: number,
    query: ResponseTimeQuery,
  ): Promise<ResponseTimePoint[] | undefined> {
    if (this.#tables.devices.get(deviceId)?.userId !== userId) return undefined;
    return this.#tables.reports.responseTimes(deviceId, query, (range) => this.#tables.rollupInput(range, deviceId));
  }
  async closedSeriesDays(userId: number, deviceId: number): Promise<ClosedSeriesDays | undefined> {
    if (this.#tables.devices.get(deviceId)?.userId !== userId) return undefined;
    return this.#tables.reports.closedDays(deviceId);
  }
  async listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined> {
    if (query.device_id !== undefined && this.#tables.devices.get(query.device_id)?.userId !== userId) {
      return undefined;
    }
    const { heartbeat_id: heartbeat } = query;
    if (heartbeat !== undefined && this.#heartbeatsPart.ownedIds(userId, [heartbeat]).length === 0) return undefined;
    return this.#tables.reports.incidents(userId, query);
  }
  async listListingPeriods(
    userId: number,
    monitorId: number,
    range: ReportRange,
  ): Promise<ListingPeriod[] | undefined> {
    if (this.#tables.monitors.get(monitorId)?.userId !== userId) return undefined;
    return this.#tables.reports.listingPeriods(monitorId, range);
  }
  async rollUpResults(before: Timestamp, maxHours: number): Promise<number> {
    return this.#tables.reports.rollUp(before, maxHours, (range) => this.#tables.rollupInput(range));
  }
  async deleteReportsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#tables.reports.deleteBefore(before, limit);
  }

  async recordHeartbeat(heartbeat: WorkerHeartbeat): Promise<void> {
    const now = this.#tables.clock.now();
    this.#heartbeats.set(heartbeat.worker_id, { ...heartbeat, last_seen_at: new Date(now).toISOString() });
    for (const [id, beat] of this.#heartbeats) {
      if (Date.parse(beat.last_seen_at) <= now - LISTED_LOCATION_MS) this.#heartbeats.delete(id);
    }
  }
  async listLocations(): Promise<LocationSummary[]> {
    return summarizeLocations(this.#heartbeats.values(), this.#tables.clock.now());
  }

  createUser(user: Omit<User, 'id'>): Promise<User> {
    return this.#access.createUser(user);
  }
  getUser(id: number): Promise<User | undefined> {
    return this.#access.getUser(id);
  }
  createApiKey(key: NewApiKey): Promise<ApiKey> {
    return this.#access.createApiKey(key);
  }
  findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined> {
    return this.#access.findApiKeyByHash(tokenHash);
  }
  getApiKey(id: number): Promise<ApiKey | undefined> {
    return this.#access.getApiKey(id);
  }
  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.#access.listApiKeys(userId);
  }
  revokeApiKey(id: number, at: Timestamp): Promise<boolean> {
    return this.#access.revokeApiKey(id, at);
  }
  recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void> {
    return this.#access.recordKeyUsage(usage);
  }

  createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    return this.#records.createDevice(userId, device);
  }
  listDevices(userId: number, req: PageRequest): Promise<Device[]> {
    return this.#records.listDevices(userId, req);
  }
  getDevice(userId: number, id: number): Promise<Device | undefined> {
    return this.#records.getDevice(userId, id);
  }
  updateDevice(userId: number, id: number, change: RecordChange<Device, NewDevice>): Promise<UpdateResult<Device>> {
    return this.#records.updateDevice(userId, id, change);
  }
  deleteDevice(userId: number, id: number): Promise<boolean> {
    return this.#records.deleteDevice(userId, id);
  }
  createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    return this.#records.createBlacklistMonitor(userId, monitor);
  }
  listBlacklistMonitors(userId: number, req: PageRequest): Promise<BlacklistMonitor[]> {
    return this.#records.listBlacklistMonitors(userId, req);
  }
  getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    return this.#records.getBlacklistMonitor(userId, id);
  }
  updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>> {
    return this.#records.updateBlacklistMonitor(userId, id, change);
  }
  deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    return this.#records.deleteBlacklistMonitor(userId, id);
  }
  requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    return this.#records.requestCheck(userId, kind, id, at, minGapMs);
  }
  listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    req: ResultsPage,
  ): Promise<CheckResult[] | undefined> {
    return this.#records.listCheckResults(userId, kind, id, req);
  }
  async ownedIds(userId: number, kind: MonitoredKind | 'heartbeat', ids: readonly number[]): Promise<number[]> {
    if (kind === 'heartbeat') return this.#heartbeatsPart.ownedIds(userId, ids);
    return this.#records.ownedIds(userId, kind, ids);
  }

  claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]> {
    return this.#checks.claimDueDevices(claim);
  }
  claimDueBlacklistMonitors(claim: ClaimRequest): Promise<ClaimedBlacklistMonitor[]> {
    return this.#checks.claimDueBlacklistMonitors(claim);
  }
  recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    return this.#checks.recordDeviceChecks(checks);
  }
  recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    return this.#checks.recordBlacklistChecks(checks);
  }
  setEnabled(kind: MonitoredKind, id: number, enabled: boolean, at: Timestamp): Promise<boolean> {
    return this.#checks.setEnabled(kind, id, enabled, at);
  }
  deleteCheckResultsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#checks.deleteCheckResultsBefore(before, limit);
  }

  createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    return this.#maintenance.createMaintenanceWindow(userId, window);
  }
  listMaintenanceWindows(userId: number, req: PageRequest): Promise<StoredMaintenanceWindow[]> {
    return this.#maintenance.listMaintenanceWindows(userId, req);
  }
  getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined> {
    return this.#maintenance.getMaintenanceWindow(userId, id);
  }
  updateMaintenanceWindow(
    userId: number,
    id: number,
    change: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>,
  ): Promise<UpdateResult<StoredMaintenanceWindow>> {
    return this.#maintenance.updateMaintenanceWindow(userId, id, change);
  }
  deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    return this.#maintenance.deleteMaintenanceWindow(userId, id);
  }
  allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]> {
    return this.#maintenance.allMaintenanceWindows();
  }
  async syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    return (await this.#maintenance.syncMaintenance(active, at)) + this.#heartbeatsPart.syncMaintenance(active, at);
  }

  // Heartbeats (memory-heartbeats.ts).
  createHeartbeat(userId: number, heartbeat: NewHeartbeat): Promise<StoredHeartbeat> {
    return this.#heartbeatsPart.createHeartbeat(userId, heartbeat);
  }
  listHeartbeats(userId: number, req: PageRequest): Promise<StoredHeartbeat[]> {
    return this.#heartbeatsPart.listHeartbeats(userId, req);
  }
  getHeartbeat(userId: number, id: number): Promise<StoredHeartbeat | undefined> {
    return this.#heartbeatsPart.getHeartbeat(userId, id);
  }
  updateHeartbeat(
    userId: number,
    id: number,
    change: RecordChange<StoredHeartbeat, HeartbeatChange>,
  ): Promise<UpdateResult<StoredHeartbeat>> {
    return this.#heartbeatsPart.updateHeartbeat(userId, id, change);
  }
  deleteHeartbeat(userId: number, id: number): Promise<boolean> {
    return this.#heartbeatsPart.deleteHeartbeat(userId, id);
  }
  listHeartbeatPings(userId: number, id: number, req: ResultsPage): Promise<HeartbeatPing[] | undefined> {
    return this.#heartbeatsPart.listHeartbeatPings(userId, id, req);
  }
  heartbeatStatusTotals(
    userId: number,
    id: number,
    range: ReportRange,
  ): Promise<StatusTotals<HeartbeatTimelineState> | undefined> {
    return this.#heartbeatsPart.heartbeatStatusTotals(userId, id, range);
  }
  heartbeatTimelines(userId: number, ids: readonly number[], range: ReportRange): Promise<HeartbeatTimeline[]> {
    return this.#heartbeatsPart.heartbeatTimelines(userId, ids, range);
  }
  recordPings(pings: readonly ReceivedPing[]): Promise<boolean[]> {
    return this.#heartbeatsPart.recordPings(pings);
  }
  claimLateHeartbeats(claim: ClaimRequest): Promise<ClaimedHeartbeat[]> {
    return this.#heartbeatsPart.claimLateHeartbeats(claim);
  }
  recordLateHeartbeats(checks: readonly RecordedCheck<HeartbeatLateOutcome>[]): Promise<boolean[]> {
    return this.#heartbeatsPart.recordLateHeartbeats(checks);
  }
  deleteHeartbeatPingsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#heartbeatsPart.deleteHeartbeatPingsBefore(before, limit);
  }

  createWebhook(userId: number, webhook: NewWebhook): Promise<CreateResult<CreatedWebhook>> {
    return this.#webhooks.createWebhook(userId, webhook);
  }
  listWebhooks(userId: number, req: PageRequest): Promise<Webhook[]> {
    return this.#webhooks.listWebhooks(userId, req);
  }
  getWebhook(userId: number, id: number): Promise<Webhook | undefined> {
    return this.#webhooks.getWebhook(userId, id);
  }
  updateWebhook(
    userId: number,
    id: number,
    change: RecordChange<Webhook, WebhookChange>,
  ): Promise<UpdateResult<CreatedWebhook>> {
    return this.#webhooks.updateWebhook(userId, id, change);
  }
  deleteWebhook(userId: number, id: number): Promise<boolean> {
    return this.#webhooks.deleteWebhook(userId, id);
  }
  listWebhookAttempts(userId: number, id: number, page: ResultsPage): Promise<WebhookAttempt[] | undefined> {
    return this.#webhooks.listWebhookAttempts(userId, id, page);
  }
  webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined> {
    return this.#webhooks.webhookWithSecret(userId, id);
  }
  fanOutEvents(now: Timestamp, limit: number): Promise<number> {
    return this.#webhooks.fanOutEvents(now, limit);
  }
  claimDeliveries(claim: DeliveryClaimRequest): Promise<ClaimedDelivery[]> {
    return this.#webhooks.claimDeliveries(claim);
  }
  recordDeliveryAttempt(lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean> {
    return this.#webhooks.recordDeliveryAttempt(lease, outcome);
  }
  deleteWebhookAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#webhooks.deleteWebhookAttemptsBefore(before, limit);
  }

  async close(): Promise<void> {}
}
