import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type {
  ActiveMaintenance,
  ApiKey,
  BlacklistCheckOutcome,
  BlacklistMonitor,
  CheckRequestResult,
  CheckResult,
  ClaimedBlacklistMonitor,
  ClaimedDelivery,
  ClaimedDevice,
  ClaimedLocationCheck,
  ClaimRequest,
  ClosedSeriesDays,
  CreatedWebhook,
  CreateResult,
  DeliveryClaimRequest,
  DeliveryLease,
  DeliveryOutcome,
  Device,
  DeviceCheckOutcome,
  Incident,
  IncidentQuery,
  ListingPeriod,
  LocationCheckOutcome,
  LocationClaimRequest,
  LocationDecider,
  LocationSummary,
  MonitoredKind,
  NewApiKey,
  NewBlacklistMonitor,
  NewDevice,
  NewMaintenanceWindow,
  NewWebhook,
  OwnedMaintenanceWindow,
  PageRequest,
  RecordChange,
  RecordedCheck,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  ResultsPage,
  StatusTimeline,
  StatusTotals,
  Store,
  StoredMaintenanceWindow,
  Timestamp,
  UpdateResult,
  User,
  Webhook,
  WebhookAttempt,
  WebhookChange,
  WebhookEndpoint,
  WorkerHeartbeat,
} from '../../core/index.ts';
import { CHANGE_COUNT_SQL } from './change-count.ts';
import { ChannelParts } from './channels/channel-parts.ts';
import { CheckRecords } from './checks/check-store.ts';
import { FreshRead } from './fresh-read.ts';
import { KyselyHeartbeats } from './heartbeats/heartbeat-store.ts';
import { KyselyMaintenance } from './maintenance/maintenance-store.ts';
import { DeviceRecords } from './records/devices.ts';
import { KeyRecords } from './records/keys.ts';
import { MonitorRecords } from './records/monitors.ts';
import { ReportRecords } from './reports/report-store.ts';
import { dialectOf } from './schema.ts';
import type { Database, StoreDialect } from './schema.ts';
import { StoreContext, type KyselyStoreOptions } from './store-context.ts';
import { KyselyWebhooks } from './webhooks/webhook-store.ts';

export type { KyselyStoreOptions };

/**
 * A store on PostgreSQL or SQLite through Kysely. Duplicates are decided by unique indexes. The
 * store is its parts, one per concept (users and keys, devices, monitors, checks, reports,
 * webhooks, channels, maintenance windows, status pages), sharing one StoreContext: the database, its dialect and the
 * count of this store's writes that the change marker reads.
 */
export class KyselyStore extends ChannelParts implements Store {
  // Heartbeats (HeartbeatStore): KyselyHeartbeats' methods, bound to it in the constructor.
  readonly createHeartbeat: Store['createHeartbeat'];
  readonly listHeartbeats: Store['listHeartbeats'];
  readonly getHeartbeat: Store['getHeartbeat'];
  readonly updateHeartbeat: Store['updateHeartbeat'];
  readonly deleteHeartbeat: Store['deleteHeartbeat'];
  readonly listHeartbeatPings: Store['listHeartbeatPings'];
  readonly heartbeatStatusTotals: Store['heartbeatStatusTotals'];
  readonly heartbeatTimelines: Store['heartbeatTimelines'];
  readonly recordPings: Store['recordPings'];
  readonly claimLateHeartbeats: Store['claimLateHeartbeats'];
  readonly recordLateHeartbeats: Store['recordLateHeartbeats'];
  readonly deleteHeartbeatPingsBefore: Store['deleteHeartbeatPingsBefore'];
  readonly #ctx: StoreContext;
  readonly #destroyOnClose: boolean;
  #closing: Promise<void> | undefined;
  readonly #keys: KeyRecords;
  readonly #devices: DeviceRecords;
  readonly #monitors: MonitorRecords;
  readonly #checks: CheckRecords;
  readonly #reports: ReportRecords;
  readonly #webhooks: KyselyWebhooks;
  readonly #maintenance: KyselyMaintenance;
  /** Heartbeats (heartbeats/heartbeat-store.ts), whose methods are this store's own (see the constructor). */
  readonly #beats: KyselyHeartbeats;
  /**
   * The change marker, read fresh for each caller (see changeMarker): on PostgreSQL the count the
   * triggers of migration 0005 keep; on SQLite `data_version` with this store's own writes.
   */
  readonly #marker: FreshRead<string | undefined> | undefined;

  constructor(db: Kysely<Database>, dialect: StoreDialect = dialectOf(db), options: KyselyStoreOptions = {}) {
    const ctx = new StoreContext(db, dialect, options.listenForChanges);
    super(ctx);
    this.#ctx = ctx;
    this.#destroyOnClose = options.destroyOnClose ?? true;
    this.#keys = new KeyRecords(ctx);
    this.#devices = new DeviceRecords(ctx);
    this.#monitors = new MonitorRecords(ctx);
    this.#checks = new CheckRecords(ctx);
    this.#reports = new ReportRecords(ctx);
    this.#webhooks = new KyselyWebhooks(db, dialect);
    this.#maintenance = new KyselyMaintenance(db, dialect);
    this.#beats = new KyselyHeartbeats(ctx);
    const beats = this.#beats;
    this.createHeartbeat = beats.createHeartbeat.bind(beats);
    this.listHeartbeats = beats.listHeartbeats.bind(beats);
    this.getHeartbeat = beats.getHeartbeat.bind(beats);
    this.updateHeartbeat = beats.updateHeartbeat.bind(beats);
    this.deleteHeartbeat = beats.deleteHeartbeat.bind(beats);
    this.listHeartbeatPings = beats.listHeartbeatPings.bind(beats);
    this.heartbeatStatusTotals = beats.heartbeatStatusTotals.bind(beats);
    this.heartbeatTimelines = beats.heartbeatTimelines.bind(beats);
    this.recordPings = beats.recordPings.bind(beats);
    this.claimLateHeartbeats = beats.claimLateHeartbeats.bind(beats);
    this.recordLateHeartbeats = beats.recordLateHeartbeats.bind(beats);
    this.deleteHeartbeatPingsBefore = beats.deleteHeartbeatPingsBefore.bind(beats);
    const { dataVersion } = options;
    if (dialect === 'postgres') this.#marker = new FreshRead(() => this.#readChangeCount());
    // data_version asks SQLite for a read transaction (two fcntl locks on the -shm file and an
    // fstat): read per request, it was a tenth of a kept list's CPU under load.
    else if (dataVersion !== undefined) this.#marker = new FreshRead(async () => `${dataVersion()}:${ctx.writes}`);
  }

  /**
   * One read serves every caller that arrived before it began, and the next read waits for the end
   * of the turn's I/O, so the list requests read from many connections in one turn share it
   * (FreshRead; docs/decisions.md, "List answers, and why they are never stale").
   */
  changeMarker(arrivedAt?: number): Promise<string | undefined> | undefined {
    return this.#marker?.get(arrivedAt);
  }

  /**
   * The number of committed writes to devices, monitors and webhooks, by every writer (see
   * migrations/0005-change-marker.ts). Committed with the write itself, so a count read before the
   * data can only be older than the data, which makes a kept answer miss, never go stale. Without
   * the table (a schema older than 0005) or on any failure, no marker: lists are read afresh and
   * report their own errors.
   */
  async #readChangeCount(): Promise<string | undefined> {
    try {
      const { rows } = await sql.raw<{ marker: string }>(CHANGE_COUNT_SQL).execute(this.#ctx.db);
      return rows[0]?.marker;
    } catch {
      return undefined;
    }
  }

  // Users and API keys (records/keys.ts).
  createUser(user: Omit<User, 'id'>): Promise<User> {
    return this.#keys.createUser(user);
  }
  getUser(id: number): Promise<User | undefined> {
    return this.#keys.getUser(id);
  }
  createApiKey(key: NewApiKey): Promise<ApiKey> {
    return this.#keys.createApiKey(key);
  }
  findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined> {
    return this.#keys.findApiKeyByHash(tokenHash);
  }
  getApiKey(id: number): Promise<ApiKey | undefined> {
    return this.#keys.getApiKey(id);
  }
  listApiKeys(userId: number): Promise<ApiKey[]> {
    return this.#keys.listApiKeys(userId);
  }
  revokeApiKey(id: number, at: Timestamp): Promise<boolean> {
    return this.#keys.revokeApiKey(id, at);
  }
  recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void> {
    return this.#keys.recordKeyUsage(usage);
  }

  // Devices (records/devices.ts).
  createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    return this.#devices.createDevice(userId, device);
  }
  getDevice(userId: number, id: number): Promise<Device | undefined> {
    return this.#devices.getDevice(userId, id);
  }
  updateDevice(userId: number, id: number, change: RecordChange<Device, NewDevice>): Promise<UpdateResult<Device>> {
    return this.#devices.updateDevice(userId, id, change);
  }
  listDevices(userId: number, page: PageRequest): Promise<Device[]> {
    return this.#devices.listDevices(userId, page);
  }
  deleteDevice(userId: number, id: number): Promise<boolean> {
    return this.#devices.deleteDevice(userId, id);
  }

  // Blacklist monitors (records/monitors.ts).
  createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    return this.#monitors.createBlacklistMonitor(userId, monitor);
  }
  getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    return this.#monitors.getBlacklistMonitor(userId, id);
  }
  updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>> {
    return this.#monitors.updateBlacklistMonitor(userId, id, change);
  }
  listBlacklistMonitors(userId: number, page: PageRequest): Promise<BlacklistMonitor[]> {
    return this.#monitors.listBlacklistMonitors(userId, page);
  }
  deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    return this.#monitors.deleteBlacklistMonitor(userId, id);
  }

  // Checks, per location too, and the workers' heartbeats (checks/check-store.ts).
  requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    return this.#checks.requestCheck(userId, kind, id, at, minGapMs);
  }
  listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    page: ResultsPage,
  ): Promise<CheckResult[] | undefined> {
    return this.#checks.listCheckResults(userId, kind, id, page);
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
  claimDueLocationChecks(claim: LocationClaimRequest): Promise<ClaimedLocationCheck[]> {
    return this.#checks.claimDueLocationChecks(claim);
  }
  recordLocationCheck(check: RecordedCheck<LocationCheckOutcome>, decide: LocationDecider): Promise<boolean> {
    return this.#checks.recordLocationCheck(check, decide);
  }
  recordHeartbeat(heartbeat: WorkerHeartbeat): Promise<void> {
    return this.#checks.recordHeartbeat(heartbeat);
  }
  listLocations(): Promise<LocationSummary[]> {
    return this.#checks.listLocations();
  }

  // Reports (reports/report-store.ts).
  statusTimelines(userId: number, deviceIds: readonly number[], range: ReportRange): Promise<StatusTimeline[]> {
    return this.#reports.statusTimelines(userId, deviceIds, range);
  }
  deviceStatusTotals(userId: number, deviceId: number, range: ReportRange): Promise<StatusTotals | undefined> {
    return this.#reports.deviceStatusTotals(userId, deviceId, range);
  }
  listResponseTimes(
    userId: number,
    deviceId: number,
    query: ResponseTimeQuery,
  ): Promise<ResponseTimePoint[] | undefined> {
    return this.#reports.listResponseTimes(userId, deviceId, query);
  }
  closedSeriesDays(userId: number, deviceId: number): Promise<ClosedSeriesDays | undefined> {
    return this.#reports.closedSeriesDays(userId, deviceId);
  }
  listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined> {
    return this.#reports.listIncidents(userId, query);
  }
  listListingPeriods(userId: number, monitorId: number, range: ReportRange): Promise<ListingPeriod[] | undefined> {
    return this.#reports.listListingPeriods(userId, monitorId, range);
  }
  rollUpResults(before: Timestamp, maxHours: number): Promise<number> {
    return this.#reports.rollUpResults(before, maxHours);
  }
  deleteReportsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#reports.deleteReportsBefore(before, limit);
  }

  // Webhooks (webhooks/webhook-store.ts). Whatever a webhook list shows counts as a write, so a
  // cached list answer is not reused after it (see changeMarker).
  createWebhook(userId: number, webhook: NewWebhook): Promise<CreateResult<CreatedWebhook>> {
    return this.#ctx.write(() => this.#webhooks.createWebhook(userId, webhook));
  }
  listWebhooks(userId: number, page: PageRequest): Promise<Webhook[]> {
    return this.#ctx.run(() => this.#webhooks.listWebhooks(userId, page));
  }
  getWebhook(userId: number, id: number): Promise<Webhook | undefined> {
    return this.#ctx.run(() => this.#webhooks.getWebhook(userId, id));
  }
  updateWebhook(
    userId: number,
    id: number,
    change: RecordChange<Webhook, WebhookChange>,
  ): Promise<UpdateResult<CreatedWebhook>> {
    return this.#ctx.write(() => this.#webhooks.updateWebhook(userId, id, change));
  }
  deleteWebhook(userId: number, id: number): Promise<boolean> {
    return this.#ctx.write(() => this.#webhooks.deleteWebhook(userId, id));
  }
  listWebhookAttempts(userId: number, id: number, page: ResultsPage): Promise<WebhookAttempt[] | undefined> {
    return this.#ctx.run(() => this.#webhooks.listWebhookAttempts(userId, id, page));
  }
  // No list answer is kept for attempts (they are read fresh), so expiring them counts no write.
  deleteWebhookAttemptsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#ctx.run(() => this.#webhooks.deleteWebhookAttemptsBefore(before, limit));
  }
  webhookWithSecret(userId: number, id: number): Promise<WebhookEndpoint | undefined> {
    return this.#ctx.run(() => this.#webhooks.webhookWithSecret(userId, id));
  }
  fanOutEvents(now: Timestamp, limit: number): Promise<number> {
    return this.#ctx.run(() => this.#webhooks.fanOutEvents(now, limit));
  }
  claimDeliveries(claim: DeliveryClaimRequest): Promise<ClaimedDelivery[]> {
    return this.#ctx.run(() => this.#webhooks.claimDeliveries(claim));
  }
  recordDeliveryAttempt(lease: DeliveryLease, outcome: DeliveryOutcome): Promise<boolean> {
    return this.#ctx.write(() => this.#webhooks.recordDeliveryAttempt(lease, outcome));
  }

  // Maintenance windows (maintenance/maintenance-store.ts). Windows are never in a cached list;
  // the flips change devices, so they count as writes.
  createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    return this.#ctx.run(() => this.#maintenance.createMaintenanceWindow(userId, window));
  }
  listMaintenanceWindows(userId: number, page: PageRequest): Promise<StoredMaintenanceWindow[]> {
    return this.#ctx.run(() => this.#maintenance.listMaintenanceWindows(userId, page));
  }
  getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined> {
    return this.#ctx.run(() => this.#maintenance.getMaintenanceWindow(userId, id));
  }
  updateMaintenanceWindow(
    userId: number,
    id: number,
    change: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>,
  ): Promise<UpdateResult<StoredMaintenanceWindow>> {
    return this.#ctx.run(() => this.#maintenance.updateMaintenanceWindow(userId, id, change));
  }
  deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    return this.#ctx.run(() => this.#maintenance.deleteMaintenanceWindow(userId, id));
  }
  ownedIds(userId: number, kind: MonitoredKind | 'heartbeat', ids: readonly number[]): Promise<number[]> {
    if (kind === 'heartbeat') return this.#beats.ownedIds(userId, ids);
    return this.#ctx.run(() => this.#maintenance.ownedIds(userId, kind, ids));
  }
  allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]> {
    return this.#ctx.run(() => this.#maintenance.allMaintenanceWindows());
  }
  async syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    const moved = await this.#ctx.write(() => this.#maintenance.syncMaintenance(active, at));
    return moved + (await this.#beats.syncMaintenance(active, at));
  }

  close(): Promise<void> {
    this.#closing ??= this.#ctx.closeChanges().then(() => (this.#destroyOnClose ? this.#ctx.db.destroy() : undefined));
    return this.#closing;
  }
}
