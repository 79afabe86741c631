import type { MonitoredKind, ResultsPage } from '../store/monitoring-store.ts';
import type {
  BlacklistMonitor,
  CheckResult,
  Device,
  NewBlacklistMonitor,
  NewDevice,
  Timestamp,
} from '../records/index.ts';
import type { CheckRequestResult, CreateResult, PageRequest, RecordChange, UpdateResult } from '../store/store.ts';
import { sameValue } from '../store/store-calls.ts';
import {
  applyEffect,
  changeNow,
  deviceIdentity,
  monitorIdentity,
  ms,
  newSchedule,
  page,
  withChangedFields,
  withNotify,
  type Owned,
} from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';

/**
 * The memory store's devices and blacklist monitors as the API manages them (memory-store.ts):
 * create, list, change and delete, with the duplicate rule; a check on request; their results.
 */
export class MemoryRecords {
  readonly #t: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#t = tables;
  }

  async createDevice(userId: number, device: NewDevice): Promise<CreateResult<Device>> {
    const identity = deviceIdentity(userId, device);
    const existing = this.#t.deviceIndex.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: Device = { id: this.#t.nextId.device++, ...structuredClone(withNotify(device)) };
    this.#t.devices.set(record.id, { userId, record, schedule: newSchedule(record.is_enabled, record.created_at) });
    this.#t.deviceIndex.set(identity, record.id);
    this.#t.reports.statusChanged(userId, record, null);
    this.#t.changes.changed('device', record.id);
    return { created: structuredClone(record) };
  }

  async listDevices(userId: number, req: PageRequest): Promise<Device[]> {
    return page(this.#t.devices, userId, req);
  }

  async getDevice(userId: number, id: number): Promise<Device | undefined> {
    const row = this.#t.devices.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateDevice(
    userId: number,
    id: number,
    change: RecordChange<Device, NewDevice>,
  ): Promise<UpdateResult<Device>> {
    const result = this.#update(this.#t.devices, this.#t.deviceIndex, deviceIdentity, userId, id, change);
    if (result !== undefined && 'updated' in result) this.#t.changes.changed('device', id);
    return result;
  }

  async getBlacklistMonitor(userId: number, id: number): Promise<BlacklistMonitor | undefined> {
    const row = this.#t.monitors.get(id);
    return row?.userId === userId ? structuredClone(row.record) : undefined;
  }

  async updateBlacklistMonitor(
    userId: number,
    id: number,
    change: RecordChange<BlacklistMonitor, NewBlacklistMonitor>,
  ): Promise<UpdateResult<BlacklistMonitor>> {
    const result = this.#update(this.#t.monitors, this.#t.monitorIndex, monitorIdentity, userId, id, change);
    if (result !== undefined && 'updated' in result) this.#t.changes.changed('blacklist_monitor', id);
    return result;
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
    const next = withChangedFields(row.record, change);
    const before = identity(userId, row.record);
    const after = identity(userId, next);
    const holder = index.get(after);
    if (holder !== undefined && holder !== id) return { duplicateOf: holder };
    const previous = row.record;
    row.record = next;
    index.delete(before);
    index.set(after, id);
    applyEffect(row as Owned<Device> | Owned<BlacklistMonitor>, change);
    this.#noteChange(row.userId, previous, row.record);
    this.#t.keepEvents(userId, change.events);
    return { updated: structuredClone(row.record) };
  }

  /** Tells the reports what an update changed: a device's status, a monitor's listings. */
  #noteChange(userId: number, before: Device | BlacklistMonitor, after: Device | BlacklistMonitor): void {
    if ('status' in before && 'status' in after) {
      this.#t.reports.statusChanged(userId, after, before.status, before.status_since);
    } else if ('listings' in after && !sameValue((before as BlacklistMonitor).listings, after.listings)) {
      this.#t.reports.listingsChanged(after);
    }
  }

  async deleteDevice(userId: number, id: number): Promise<boolean> {
    const row = this.#t.devices.get(id);
    if (!row || row.userId !== userId) return false;
    this.#t.devices.delete(id);
    this.#t.deviceIndex.delete(deviceIdentity(userId, row.record));
    this.#t.dropResults('device', id);
    this.#t.reports.dropDevice(id);
    this.#t.changes.changed('device', id);
    return true;
  }

  async createBlacklistMonitor(userId: number, monitor: NewBlacklistMonitor): Promise<CreateResult<BlacklistMonitor>> {
    const identity = monitorIdentity(userId, monitor);
    const existing = this.#t.monitorIndex.get(identity);
    if (existing !== undefined) return { duplicateOf: existing };
    const record: BlacklistMonitor = { id: this.#t.nextId.monitor++, ...structuredClone(withNotify(monitor)) };
    this.#t.monitors.set(record.id, { userId, record, schedule: newSchedule(record.is_enabled, record.created_at) });
    this.#t.monitorIndex.set(identity, record.id);
    this.#t.changes.changed('blacklist_monitor', record.id);
    return { created: structuredClone(record) };
  }

  async listBlacklistMonitors(userId: number, req: PageRequest): Promise<BlacklistMonitor[]> {
    return page(this.#t.monitors, userId, req);
  }

  async deleteBlacklistMonitor(userId: number, id: number): Promise<boolean> {
    const row = this.#t.monitors.get(id);
    if (!row || row.userId !== userId) return false;
    this.#t.monitors.delete(id);
    this.#t.monitorIndex.delete(monitorIdentity(userId, row.record));
    this.#t.dropResults('blacklist_monitor', id);
    this.#t.reports.dropMonitor(id);
    this.#t.changes.changed('blacklist_monitor', id);
    return true;
  }

  async requestCheck(
    userId: number,
    kind: MonitoredKind,
    id: number,
    at: Timestamp,
    minGapMs: number,
  ): Promise<CheckRequestResult> {
    const row = this.#t.row(kind, id);
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
    const owner = this.#t.row(kind, id);
    if (!owner || owner.userId !== userId) return undefined;
    const out: CheckResult[] = [];
    const results = this.#t.results;
    for (let i = results.length - 1; i >= 0 && out.length < req.limit; i--) {
      const { kind: k, resourceId, result } = results[i]!;
      if (k !== kind || resourceId !== id) continue;
      if (req.beforeId !== undefined && result.id >= req.beforeId) continue;
      out.push(structuredClone(result));
    }
    return out;
  }

  async ownedIds(userId: number, kind: MonitoredKind, ids: readonly number[]): Promise<number[]> {
    return ids.filter((id) => this.#t.row(kind, id)?.userId === userId);
  }
}
