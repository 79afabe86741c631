import { occurrenceAt, toTimestamp, type ActiveMaintenance } from '../../core/internal.ts';
import type { ResolvedEngineOptions } from '../options.ts';

/**
 * Applies the maintenance windows at `nowMs` (docs/engine.md, "Maintenance windows"): every window
 * is read once (one query per claim cycle, whatever the number of records), those in force are
 * worked out here with the runtime's time-zone data, and the store flips the devices they cover
 * into `maintenance` and those no longer covered back to `pending`, each with its event. Nothing
 * when the store has no maintenance windows.
 */
export async function syncMaintenance(store: ResolvedEngineOptions['store'], nowMs: number): Promise<number> {
  if (store.allMaintenanceWindows === undefined || store.syncMaintenance === undefined) return 0;
  const active: ActiveMaintenance[] = [];
  for (const window of await store.allMaintenanceWindows()) {
    const occurrence = occurrenceAt(window, nowMs);
    if (occurrence === null) continue;
    active.push({
      user_id: window.user_id,
      device_ids: window.all_devices ? null : window.device_ids,
      blacklist_monitor_ids: window.all_blacklist_monitors ? null : window.blacklist_monitor_ids,
      heartbeat_ids: window.all_heartbeats ? null : window.heartbeat_ids,
      started_at: toTimestamp(occurrence.start),
    });
  }
  return store.syncMaintenance(active, toTimestamp(nowMs));
}
