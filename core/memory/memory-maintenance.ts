import type { ActiveMaintenance, OwnedMaintenanceWindow } from '../store/maintenance-store.ts';
import type {
  Device,
  NewMaintenanceWindow,
  NewMonitoringEvent,
  StoredMaintenanceWindow,
  Timestamp,
} from '../records/index.ts';
import type { PageRequest, RecordChange, UpdateResult } from '../store/store.ts';
import { deleteOwned, iso, ms, newSchedule, page, updateOwned, type Owned } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';

/**
 * The memory store's maintenance windows (memory-store.ts), and what the engine's sync of them
 * does to the devices and blacklist monitors they cover.
 */
export class MemoryMaintenance {
  readonly #t: MemoryTables;
  readonly #windows = new Map<number, Owned<StoredMaintenanceWindow>>();

  constructor(tables: MemoryTables) {
    this.#t = tables;
  }

  async createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    const record: StoredMaintenanceWindow = { id: this.#t.nextId.window++, ...structuredClone(window) };
    this.#windows.set(record.id, { userId, record, schedule: newSchedule(false, record.created_at) });
    this.#t.changes.changed('maintenance_window', record.id);
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
    const result = updateOwned(this.#windows, userId, id, change);
    if (result !== undefined && 'updated' in result) this.#t.changes.changed('maintenance_window', id);
    return result;
  }

  async deleteMaintenanceWindow(userId: number, id: number): Promise<boolean> {
    const deleted = deleteOwned(this.#windows, userId, id);
    if (deleted) this.#t.changes.changed('maintenance_window', id);
    return deleted;
  }

  async allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]> {
    return [...this.#windows.values()].map(({ userId, record }) => ({ ...structuredClone(record), user_id: userId }));
  }

  async syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    let moved = 0;
    const covering = (userId: number, id: number) =>
      active.filter((a) => a.user_id === userId && (a.device_ids === null || a.device_ids.includes(id)));
    for (const row of this.#t.devices.values()) {
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
    for (const row of this.#t.monitors.values()) {
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
    this.#t.reports.statusChanged(row.userId, row.record, previous, previousSince);
    this.#t.changes.changed('device', row.record.id);
    if (type === null) return;
    const data = { ...structuredClone(row.record), previous_status: previous, status };
    this.#t.keepEvents(row.userId, [{ type, created_at: iso(at), data }]);
  }
}
