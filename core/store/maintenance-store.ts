import type { MonitoredKind } from './monitoring-store.ts';
import type { NewMaintenanceWindow, StoredMaintenanceWindow, Timestamp } from '../records/index.ts';
import type { PageRequest, RecordChange, UpdateResult } from './store-calls.ts';

/**
 * What maintenance windows need of a store (docs/contract.md §6.10, docs/engine.md, "Maintenance
 * windows"): the resource itself, and for the engine every window at once and the status flips of
 * the devices they cover. `Store` extends it.
 */
export interface MaintenanceStore {
  createMaintenanceWindow(userId: number, window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow>;
  /** Ascending by id. */
  listMaintenanceWindows(userId: number, page: PageRequest): Promise<StoredMaintenanceWindow[]>;
  getMaintenanceWindow(userId: number, id: number): Promise<StoredMaintenanceWindow | undefined>;
  /** Compare-and-set on `change.fields`, as `updateDevice`; windows have no duplicates. */
  updateMaintenanceWindow(
    userId: number,
    id: number,
    change: RecordChange<StoredMaintenanceWindow, NewMaintenanceWindow>,
  ): Promise<UpdateResult<StoredMaintenanceWindow>>;
  deleteMaintenanceWindow(userId: number, id: number): Promise<boolean>;
  /** Of `ids`, those that are records of `kind` of the user. */
  ownedIds(userId: number, kind: MonitoredKind | 'heartbeat', ids: readonly number[]): Promise<number[]>;

  /** Every window of every user, for the engine: read once per claim cycle. */
  allMaintenanceWindows(): Promise<OwnedMaintenanceWindow[]>;
  /**
   * Puts the devices the windows in force cover into `maintenance`, and the devices in
   * `maintenance` that none covers back to `pending` (due at once, failures counted afresh), each
   * flip a conditional UPDATE written with its event (`device.maintenance_started` /
   * `device.maintenance_ended`) in one transaction, so that several workers never announce one
   * flip twice. Each is sent once per device and occurrence (`ActiveMaintenance.started_at`): a
   * device entering again the occurrence it was announced for enters silently. A paused device
   * is left alone. Likewise for blacklist monitors, without events:
   * one entering keeps the listings last announced (`announced_listed_on` of its claims), one
   * leaving is due at once. And for heartbeats, as core's `maintenanceStarted` and
   * `maintenanceEnded` say (no event; their timeline records the window). Answers how many records
   * it moved.
   */
  syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number>;
}

export interface OwnedMaintenanceWindow extends StoredMaintenanceWindow {
  user_id: number;
}

/** The devices one window in force covers: some of its user's, or all of them. */
export interface ActiveMaintenance {
  user_id: number;
  /** Null: every device of the user. */
  device_ids: readonly number[] | null;
  /** Null: every blacklist monitor of the user. */
  blacklist_monitor_ids: readonly number[] | null;
  /** Null: every heartbeat of the user. */
  heartbeat_ids: readonly number[] | null;
  /** When the occurrence in force began: the devices' `status_since`. */
  started_at: Timestamp;
}
