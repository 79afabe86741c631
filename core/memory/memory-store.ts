import type {
  BlacklistCheckOutcome,
  ClaimRequest,
  ClaimedBlacklistMonitor,
  ClaimedDevice,
  DeviceCheckOutcome,
  Lease,
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
  DeviceLastResults,
  MonitoringEvent,
  NewApiKey,
  NewBlacklistMonitor,
  NewCheckResult,
  NewDevice,
  NewMonitoringEvent,
  NewWebhook,
  LocationSummary,
  Timestamp,
  User,
  Webhook,
  WebhookAttempt,
  WorkerHeartbeat,
} from '../records.ts';
import { systemClock, type Clock } from '../clock.ts';
import { LISTED_LOCATION_MS, summarizeLocations, type StoredHeartbeat } from '../locations.ts';
import type {
  CheckRequestResult,
  CreateResult,
  PageRequest,
  RecordChange,
  Store,
  UpdateResult,
} from '../store/store.ts';
import { MemoryWebhooks } from './memory-webhooks.ts';
import { sameValue } from '../store/store-calls.ts';
import {
  applyEffect,
  claimDue,
  deviceIdentity,
  holds,
  iso,
  monitorIdentity,
  ms,
  newSchedule,
  page,
  changeNow,
  type Owned,
} from './memory-rows.ts';
import type { WebhookEndpoint } from '../webhook-sender.ts';
import type {
  ClaimedDelivery,
  DeliveryClaimRequest,
  DeliveryLease,
  DeliveryOutcome,
  WebhookChange,
} from '../store/webhook-store.ts';
import type { ActiveMaintenance, OwnedMaintenanceWindow } from '../store/maintenance-store.ts';
import type { NewMaintenanceWindow, StoredMaintenanceWindow } from '../records.ts';
import { MemoryReports, rollupInputOf } from './memory-reports.ts';
import type { RollupInput } from '../reports/rollups.ts';
import type {
  ClosedSeriesDays,
  Incident,
  IncidentQuery,
  ListingPeriod,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  StatusTotals,
} from '../reports/report-records.ts';

interface StoredResult {
  kind: MonitoredKind;
  resourceId: number;
  result: CheckResult;
}

/**
 * A store in this process's memory: for tests, examples and embedding without a database.
 * It returns copies, so callers cannot change what it holds.
 */
export class MemoryStore implements Store {
  // Reports (memory-reports.ts): told of every status and listings change where this store makes it.
  async deviceStatusTotals(userId: number, deviceId: number, range: ReportRange): Promise<StatusTotals | undefined> {
    if (this.#devices.get(deviceId)?.userId !== userId) return undefined;
    return this.#reports.statusTotals(deviceId, range);
  }
  async listResponseTimes(
    userId: number,
    deviceId: number,
    query: ResponseTimeQuery,
  ): Promise<ResponseTimePoint[] | undefined> {
    if (this.#devices.get(deviceId)?.userId !== userId) return undefined;
    return this.#reports.responseTimes(deviceId, query, (range) => this.#rollupInput(range, deviceId));
  }
  async closedSeriesDays(userId: number, deviceId: number): Promise<ClosedSeriesDays | undefined> {
    if (this.#devices.get(deviceId)?.userId !== userId) return undefined;
    return this.#reports.closedDays(deviceId);
  }
  async listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined> {
    if (query.device_id !== undefined && this.#devices.get(query.device_id)?.userId !== userId) return undefined;
    return this.#reports.incidents(userId, query);
  }
  async listListingPeriods(
    userId: number,
    monitorId: number,
    range: ReportRange,
  ): Promise<ListingPeriod[] | undefined> {
    if (this.#monitors.get(monitorId)?.userId !== userId) return undefined;
    return this.#reports.listingPeriods(monitorId, range);
  }
  async rollUpResults(before: Timestamp, maxHours: number): Promise<number> {
    return this.#reports.rollUp(before, maxHours, (range) => this.#rollupInput(range));
  }
  async deleteReportsBefore(before: Timestamp, limit: number): Promise<number> {
    return this.#reports.deleteBefore(before, limit);
  }

  /** The raw device results a rollup reads, checked in [from, to), of one device or all. */
  #rollupInput(range: { from: Timestamp; to: Timestamp }, deviceId?: number): RollupInput[] {
    return rollupInputOf(this.#results, range, deviceId);
  }

  #nextId = { user: 1, key: 1, device: 1, monitor: 1, result: 1, check: 1, lease: 1, event: 1, window: 1 };
  readonly #windows = new Map<number, Owned<StoredMaintenanceWindow>>();
  readonly #users = new Map<number, User>();
  readonly #keys = new Map<number, ApiKey & { token_hash: string }>();
  readonly #devices = new Map<number, Owned<Device>>();
  readonly #deviceIndex = new Map<string, number>();
  readonly #monitors = new Map<number, Owned<BlacklistMonitor>>();
  readonly #monitorIndex = new Map<string, number>();
  /** Every check result, in id order. */
  #results: StoredResult[] = [];
  /** The event outbox, in id order. */
  readonly #events: MonitoringEvent[] = [];
  /** Webhooks and their deliveries, over the outbox above. */
  readonly #webhooks = new MemoryWebhooks(() => this.#events);
  /** Worker heartbeats by worker id. */
  readonly #heartbeats = new Map<string, StoredHeartbeat>();
  /** The store's own clock, which stamps heartbeats as a database's clock would. */
  readonly #clock: Clock;
  readonly #reports: MemoryReports;

  constructor(options: { clock?: Clock } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#reports = new MemoryReports(this.#clock.now());
  }

  async recordHeartbeat(heartbeat: WorkerHeartbeat): Promise<void> {
    const now = this.#clock.now();
    this.#heartbeats.set(heartbeat.worker_id, { ...heartbeat, last_seen_at: new Date(now).toISOString() });
    for (const [id, beat] of this.#heartbeats) {
      if (Date.parse(beat.last_seen_at) <= now - LISTED_LOCATION_MS) this.#heartbeats.delete(id);
    }
  }

  async listLocations(): Promise<LocationSummary[]> {
    return summarizeLocations(this.#heartbeats.values(), this.#clock.now());
  }

  async createUser(user: Omit<User, 'id'>): Promise<User> {
    const record = { id: this.#nextId.user++, ...user };
    this.#users.set(record.id, record);
    return { ...record };
  }

  async getUser(id: number): Promise<User | undefined> {
    const user = this.#users.get(id);
    return user && { ...user };
  }

  async createApiKey(key: NewApiKey): Promise<ApiKey> {
    if (!this.#users.has(key.user_id)) throw new Error(`no user ${key.user_id}`);
    const stored = { ...structuredClone(key), id: this.#nextId.key++, revoked_at: null, last_used_at: null };
    this.#keys.set(stored.id, stored);
    return publicKey(stored);
  }

  async findApiKeyByHash(tokenHash: string): Promise<ApiKey | undefined> {
    for (const key of this.#keys.values()) if (key.token_hash === tokenHash) return publicKey(key);
    return undefined;
  }

  async getApiKey(id: number): Promise<ApiKey | undefined> {
    const key = this.#keys.get(id);
    return key && publicKey(key);
  }

  async listApiKeys(userId: number): Promise<ApiKey[]> {
    return [...this.#keys.values()].filter((k) => k.user_id === userId).map(publicKey);
  }

  async revokeApiKey(id: number, at: Timestamp): Promise<boolean> {
    const key = this.#keys.get(id);
    if (!key || key.revoked_at !== null) return false;
    key.revoked_at = at;
    return true;
  }

  async recordKeyUsage(usage: ReadonlyMap<number, Timestamp>): Promise<void> {
    for (const [id, at] of usage) {
      const key = this.#keys.get(id);
      if (key && (key.last_used_at === null || key.last_used_at < at)) key.last_used_at = at;
    }
  }

  async createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    const identity = deviceIdentity(userId, device);
    const existing = this.#deviceIndex.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: Device = { id: this.#nextId.device++, ...structuredClone(device) };
    this.#devices.set(record.id, { userId, record, schedule: newSchedule(record.is_enabled, record.created_at) });
    this.#deviceIndex.set(identity, record.id);
    this.#reports.statusChanged(userId, record, null);
    return { created: structuredClone(record) };
  }

  async listDevices(userId: number, req: PageRequest): Promise<Device[]> {
    return page(this.#devices, userId, req);
  }

  async getDevice(userId: number, id: number): Promise<Device | undefined> {
    const row = this.#devices.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateDevice(
    userId: number,
    id: number,
    change: RecordChange<Device, NewDevice>,
  ): Promise<UpdateResult<Device>> {
    return this.#update(this.#devices, this.#deviceIndex, deviceIdentity, userId, id, change);
  }

  async getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    const row = this.#monitors.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>> {
    return this.#update(this.#monitors, this.#monitorIndex, monitorIdentity, userId, id, change);
  }

  /** A change, compare-and-set, with its duplicate rule, engine effect and events, all at once. */
  #update<T extends Device | BlacklistMonitor, New extends object>(
    rows: Map<number, Owned<T>>,
    index: Map<string, number>,
    identity: (userId: number, record: T) => string,
    userId: number,
    id: number,
    change: RecordChange<T, New>,
  ): UpdateResult<T> {
    const row = rows.get(id);
    if (!row || row.userId !== userId) return undefined;
    const now = changeNow(row.record, change);
    if (now === 'stale') return { stale: true };
    if (now === 'unchanged') return { updated: structuredClone(row.record) };
    change = now;
    const next = { ...row.record } as Record<string, unknown>;
    const to = change.to as Record<string, unknown>;
    for (const name of change.fields) if (Object.hasOwn(next, name)) next[name] = structuredClone(to[name]);
    const before = identity(userId, row.record);
    const after = identity(userId, next as T);
    const holder = index.get(after);
    if (holder !== undefined && holder !== id) return { duplicateOf: holder };
    const previous = row.record;
    row.record = next as T;
    index.delete(before);
    index.set(after, id);
    applyEffect(row as Owned<Device> | Owned<BlacklistMonitor>, change);
    this.#noteChange(row.userId, previous, row.record);
    this.#keepEvents(userId, change.events);
    return { updated: structuredClone(row.record) };
  }

  async deleteDevice(userId: number, id: number): Promise<boolean> {
    const row = this.#devices.get(id);
    if (!row || row.userId !== userId) return false;
    this.#devices.delete(id);
    this.#deviceIndex.delete(deviceIdentity(userId, row.record));
    this.#dropResults('device', id);
    this.#reports.dropDevice(id);
    return true;
  }

  async createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    const identity = monitorIdentity(userId, monitor);
    const existing = this.#monitorIndex.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: BlacklistMonitor = { id: this.#nextId.monitor++, ...structuredClone(monitor) };
    this.#monitors.set(record.id, { userId, record, schedule: newSchedule(record.is_enabled, record.created_at) });
    this.#monitorIndex.set(identity, record.id);
    return { created: structuredClone(record) };
  }

  async listBlacklistMonitors(userId: number, req: PageRequest): Promise<BlacklistMonitor[]> {
    return page(this.#monitors, userId, req);
  }

  async deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    const row = this.#monitors.get(id);
    if (!row || row.userId !== userId) return false;
    this.#monitors.delete(id);
    this.#monitorIndex.delete(monitorIdentity(userId, row.record));
    this.#dropResults('blacklist_monitor', id);
    this.#reports.dropMonitor(id);
    return true;
  }

  async requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    const row = kind === 'device' ? this.#devices.get(id) : this.#monitors.get(id);
    if (!row || row.userId !== userId) return { outcome: 'not_found' };
    if (!row.record.is_enabled) return { outcome: 'paused' };
    const now = ms(at);
    const last = row.schedule.checkRequestedAt;
    if (last !== null && now - last < minGapMs) {
      return { outcome: 'too_soon', retry_at: new Date(last + minGapMs).toISOString() };
    }
    row.schedule.checkRequestedAt = now;
    row.schedule.nextCheckAt = now;
    return { outcome: 'due', record: structuredClone(row.record) };
  }

  async listCheckResults(
    userId: number,
    kind: MonitoredKind,
    id: number,
    req: ResultsPage,
  ): Promise<CheckResult[] | undefined> {
    const owner = kind === 'device' ? this.#devices.get(id) : this.#monitors.get(id);
    if (!owner || owner.userId !== userId) return undefined;
    const out: CheckResult[] = [];
    for (let i = this.#results.length - 1; i >= 0 && out.length < req.limit; i--) {
      const { kind: k, resourceId, result } = this.#results[i]!;
      if (k !== kind || resourceId !== id) continue;
      if (req.beforeId !== undefined && result.id >= req.beforeId) continue;
      out.push(structuredClone(result));
    }
    return out;
  }

  async claimDueDevices(claim: ClaimRequest): Promise<ClaimedDevice[]> {
    const token = `m${this.#nextId.lease++}`;
    return claimDue(this.#devices, claim, token).map((c) => ({
      ...c,
      consecutive_failures: this.#devices.get(c.record.id)!.schedule.failures,
    }));
  }

  async claimDueBlacklistMonitors(claim: ClaimRequest): Promise<ClaimedBlacklistMonitor[]> {
    return claimDue(this.#monitors, claim, `m${this.#nextId.lease++}`).map((claimed) => {
      const row = this.#monitors.get(claimed.record.id)!;
      return {
        ...claimed,
        ...(row.maintenanceSince == null ? {} : { maintenance_since: row.maintenanceSince }),
        ...(row.announced == null ? {} : { announced_listed_on: [...row.announced] }),
      };
    });
  }

  async recordDeviceChecks(checks: readonly RecordedCheck<DeviceCheckOutcome>[]): Promise<boolean[]> {
    return checks.map(({ lease, outcome }) => this.#recordDeviceCheck(lease, outcome));
  }

  async recordBlacklistChecks(checks: readonly RecordedCheck<BlacklistCheckOutcome>[]): Promise<boolean[]> {
    return checks.map(({ lease, outcome }) => this.#recordBlacklistCheck(lease, outcome));
  }

  #recordDeviceCheck(lease: Lease, outcome: DeviceCheckOutcome): boolean {
    const row = this.#devices.get(lease.id);
    if (!holds(row, lease) || row.record.status !== outcome.previous_status) return false;
    const checkedAt = iso(outcome.checked_at);
    const last: DeviceLastResults = { ...row.record.last_results };
    for (const result of outcome.results) Object.assign(last, { [result.probe]: structuredClone(result) });
    const { status: previous, status_since: previousSince } = row.record;
    const upSince = row.upSince ?? null;
    // A silent `validating` → `up` gives back the `up` it left (docs/engine.md, "Statuses and transitions").
    if (outcome.status !== previous) {
      row.record.status_since =
        previous === 'validating' && outcome.status === 'up' && upSince !== null ? upSince : checkedAt;
    }
    row.upSince =
      outcome.status !== 'validating'
        ? null
        : previous === 'up'
          ? previousSince
          : previous === 'validating'
            ? upSince
            : null;
    Object.assign(row.record, { status: outcome.status, last_checked_at: checkedAt, last_results: last });
    this.#reports.statusChanged(row.userId, row.record, previous, previousSince);
    row.schedule = {
      ...row.schedule,
      nextCheckAt: ms(outcome.next_check_at),
      lease: null,
      failures: outcome.consecutive_failures,
    };
    this.#keepResults('device', lease.id, outcome.results);
    this.#keepEvents(row.userId, outcome.events);
    return true;
  }

  #recordBlacklistCheck(lease: Lease, outcome: BlacklistCheckOutcome): boolean {
    const row = this.#monitors.get(lease.id);
    if (!holds(row, lease)) return false;
    const since = outcome.maintenance_since == null ? null : iso(outcome.maintenance_since);
    if ((row.maintenanceSince ?? null) !== since) return false;
    if (since === null) row.announced = null;
    Object.assign(row.record, {
      last_status: outcome.last_status,
      // Stored as every store answers timestamps: ISO 8601 UTC with milliseconds, whatever ISO form came in.
      last_checked_at: iso(outcome.checked_at),
      listed_on: [...outcome.listed_on],
      failed_zones: [...outcome.failed_zones],
      listings: structuredClone(outcome.listings),
      rdns: outcome.rdns,
    });
    this.#reports.listingsChanged(row.record);
    row.schedule = { ...row.schedule, nextCheckAt: ms(outcome.next_check_at), lease: null, failures: 0 };
    this.#keepResults('blacklist_monitor', lease.id, outcome.results);
    this.#keepEvents(row.userId, outcome.events);
    return true;
  }

  async setEnabled(kind: MonitoredKind, id: number, enabled: boolean, at: Timestamp): Promise<boolean> {
    const row = kind === 'device' ? this.#devices.get(id) : this.#monitors.get(id);
    if (!row) return false;
    const wasEnabled = row.record.is_enabled;
    row.record.is_enabled = enabled;
    if (enabled === wasEnabled) return true;
    row.schedule = { ...newSchedule(enabled, at), checkRequestedAt: row.schedule.checkRequestedAt };
    if (kind === 'device') {
      const device = row.record as Device;
      const { status: previous, status_since: previousSince } = device;
      Object.assign(device, { status: enabled ? 'pending' : 'paused', status_since: iso(at) });
      this.#reports.statusChanged(row.userId, device, previous, previousSince);
    }
    return true;
  }

  async deleteCheckResultsBefore(before: Timestamp, limit: number): Promise<number> {
    // Raw results are the rollups' input: none goes before its hour is rolled up.
    const cutoff = Math.min(ms(before), this.#reports.rolledUntil);
    let deleted = 0;
    this.#results = this.#results.filter(({ result }) => {
      if (deleted >= limit || ms(result.checked_at) >= cutoff) return true;
      deleted++;
      return false;
    });
    return deleted;
  }

  #keepResults(kind: MonitoredKind, resourceId: number, results: readonly NewCheckResult[]): void {
    const checkId = this.#nextId.check++;
    for (const result of results) {
      const stored = {
        ...structuredClone(result),
        id: this.#nextId.result++,
        check_id: checkId,
        checked_at: iso(result.checked_at),
        // This store keeps no schedule per location: every check is from any one location.
        check_location: null,
      } as CheckResult;
      this.#results.push({ kind, resourceId, result: stored });
    }
  }

  #keepEvents(userId: number, events: readonly NewMonitoringEvent[]): void {
    for (const event of events) {
      this.#events.push({
        ...structuredClone(event),
        id: this.#nextId.event++,
        user_id: userId,
        created_at: iso(event.created_at),
      });
    }
  }

  #dropResults(kind: MonitoredKind, resourceId: number): void {
    this.#results = this.#results.filter((r) => r.kind !== kind || r.resourceId !== resourceId);
  }

  async createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    const record: StoredMaintenanceWindow = { id: this.#nextId.window++, ...structuredClone(window) };
    this.#windows.set(record.id, { userId, record, schedule: newSchedule(false, record.created_at) });
    return structuredClone(record);
  }

  async listMaintenanceWindows(userId: number, req: PageRequest): Promise<StoredMaintenanceWindow[]> {
    return page(this.#windows, userId, req);
  }

  async getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined> {
    const row = this.#windows.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateMaintenanceWindow(
    userId: number,
    id: number,
    change: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>,
  ): Promise<UpdateResult<StoredMaintenanceWindow>> {
    const row = this.#windows.get(id);
    if (!row || row.userId !== userId) return undefined;
    const now = changeNow(row.record, change);
    if (now === 'stale') return { stale: true };
    if (now === 'unchanged') return { updated: structuredClone(row.record) };
    const next = { ...row.record } as Record<string, unknown>;
    const to = now.to as unknown as Record<string, unknown>;
    for (const name of now.fields) if (Object.hasOwn(next, name)) next[name] = structuredClone(to[name]);
    row.record = next as unknown as StoredMaintenanceWindow;
    return { updated: structuredClone(row.record) };
  }

  async deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    const row = this.#windows.get(id);
    if (!row || row.userId !== userId) return false;
    return this.#windows.delete(id);
  }

  async ownedIds(userId: number, kind: MonitoredKind, ids: readonly number[]): Promise<number[]> {
    const rows: Map<number, Owned<unknown>> = kind === 'device' ? this.#devices : this.#monitors;
    return ids.filter((id) => rows.get(id)?.userId === userId);
  }

  async allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]> {
    return [...this.#windows.values()].map(({ userId, record }) => ({ ...structuredClone(record), user_id: userId }));
  }

  async syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    let moved = 0;
    const covering = (userId: number, id: number) =>
      active.filter((a) => a.user_id === userId && (a.device_ids === null || a.device_ids.includes(id)));
    for (const row of this.#devices.values()) {
      const { record } = row;
      if (!record.is_enabled) continue;
      const windows = covering(row.userId, record.id);
      if (windows.length > 0 && record.status !== 'maintenance') {
        const since = windows.map((w) => iso(w.started_at)).sort()[0]!;
        // Entering the occurrence already announced (the device left it by a pause or an edit) is silent.
        const announce = row.maintenanceAnnounced !== since;
        this.#flip(row, 'maintenance', since, announce ? 'device.maintenance_started' : null, at);
        row.maintenanceAnnounced = since;
        moved++;
      } else if (windows.length === 0 && record.status === 'maintenance') {
        this.#flip(row, 'pending', iso(at), 'device.maintenance_ended', at);
        row.maintenanceAnnounced = null;
        row.schedule = { ...row.schedule, nextCheckAt: ms(at), lease: null, failures: 0 };
        moved++;
      }
    }
    for (const row of this.#monitors.values()) {
      const windows = active.filter(
        (a) =>
          a.user_id === row.userId &&
          (a.blacklist_monitor_ids === null || a.blacklist_monitor_ids.includes(row.record.id)),
      );
      const covered = windows.length > 0;
      if (covered && row.record.is_enabled && (row.maintenanceSince ?? null) === null) {
        const since = windows.map((a) => iso(a.started_at)).sort()[0]!;
        row.maintenanceSince = since;
        row.announced ??= [...row.record.listed_on];
        moved++;
      } else if (!covered && (row.maintenanceSince ?? null) !== null) {
        row.maintenanceSince = null;
        if (row.record.is_enabled) {
          row.schedule = { ...row.schedule, nextCheckAt: ms(at), lease: null, failures: 0 };
          moved++;
        }
      }
    }
    return moved;
  }

  #flip(
    row: Owned<Device>,
    status: 'maintenance' | 'pending',
    since: Timestamp,
    type: NewMonitoringEvent['type'] | null,
    at: Timestamp,
  ): void {
    const { status: previous, status_since: previousSince } = row.record;
    Object.assign(row.record, { status, status_since: since });
    this.#reports.statusChanged(row.userId, row.record, previous, previousSince);
    if (type === null) return;
    const data = { ...structuredClone(row.record), previous_status: previous, status };
    this.#keepEvents(row.userId, [{ type, created_at: iso(at), data }]);
  }

  /** Tells the reports what an update changed: a device's status, a monitor's listings. */
  #noteChange(userId: number, before: Device | BlacklistMonitor, after: Device | BlacklistMonitor): void {
    if ('status' in before && 'status' in after) {
      this.#reports.statusChanged(userId, after, before.status, before.status_since);
    } else if ('listings' in after && !sameValue((before as BlacklistMonitor).listings, after.listings)) {
      this.#reports.listingsChanged(after);
    }
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

function publicKey(stored: ApiKey & { token_hash: string }): ApiKey {
  const { token_hash: _hash, ...key } = structuredClone(stored);
  return key;
}
