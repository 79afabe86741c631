/** Maintenance windows: when checked records are never announced down or up (docs/contract.md §6.10). */
import type { Timestamp } from './common.ts';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A weekly window: on each of `days`, from `start` (local time in `time_zone`) for `duration_s`. */
export interface MaintenanceRepeat {
  days: Weekday[];
  /** `HH:MM`, 24-hour, in `time_zone`. */
  start: string;
  duration_s: number;
  /** An IANA zone (`Europe/Berlin`): the window follows its daylight-saving changes. */
  time_zone: string;
}

/** A maintenance window as stored: one-off (`starts_at`, `ends_at`) or weekly (`repeat`). */
export interface MaintenanceWindowSettings {
  name: string;
  starts_at: Timestamp | null;
  ends_at: Timestamp | null;
  repeat: MaintenanceRepeat | null;
  device_ids: number[];
  all_devices: boolean;
  blacklist_monitor_ids: number[];
  all_blacklist_monitors: boolean;
  /** The heartbeats it covers (docs/heartbeats.md, "Maintenance windows"). */
  heartbeat_ids: number[];
  all_heartbeats: boolean;
}

export interface StoredMaintenanceWindow extends MaintenanceWindowSettings {
  id: number;
  created_at: Timestamp;
}

/** What the API shows (docs/contract.md §6.10): the window, and when it is in force, from the clock. */
export interface MaintenanceWindow extends StoredMaintenanceWindow {
  active_now: boolean;
  /** The start of the occurrence in force, or of the next one; null when none is left. */
  next_start_at: Timestamp | null;
  next_end_at: Timestamp | null;
}

export type NewMaintenanceWindow = Omit<StoredMaintenanceWindow, 'id'>;
