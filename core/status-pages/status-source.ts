import { toTimestamp } from '../clock.ts';
import type { BlacklistMonitor, Device, Notice, OwnedStatusPage, StoredMaintenanceWindow } from '../records/index.ts';
import type { ListingPeriod, ResponseTimePoint, StatusTimeline } from '../reports/report-records.ts';
import type { HeartbeatTimeline } from '../store/heartbeat-store.ts';
import type { Store } from '../store/store.ts';
import { pageDays } from './page-time.ts';

/** How long a resolved notice stays on the page (docs/status-pages.md, "The page"). */
export const RESOLVED_SHOWN_MS = 14 * 86_400_000;
/** How far ahead maintenance is shown. */
export const MAINTENANCE_AHEAD_MS = 7 * 86_400_000;
/** The most notices a page reads: its feed's entries and the notices on it. */
const MAX_NOTICES = 200;
/** Windows read per store call while looking for those covering the page. */
const WINDOW_BATCH = 500;

/**
 * Everything a status page shows, read from the store for one moment: the page, its components'
 * records, their timelines (devices, heartbeats) and listings (blacklist monitors) over the page's days, the
 * response times per day when shown, its notices and the maintenance windows covering its
 * components. What the page shows is a function of this and the clock (status-view.ts), so it
 * can be kept and invalidated per page.
 */
export interface StatusSource {
  page: OwnedStatusPage;
  /** The start of the time the page's days cover (its first day, or `history_days` × 24 h ago if earlier). */
  from: number;
  devices: Map<number, Device>;
  monitors: Map<number, BlacklistMonitor>;
  timelines: Map<number, StatusTimeline>;
  listings: Map<number, ListingPeriod[]>;
  /** The heartbeats with their timelines over the page's days, by id. */
  heartbeats: Map<number, HeartbeatTimeline>;
  /** Day buckets of the page's zone, by device; empty unless `show_response_times`. */
  responseTimes: Map<number, ResponseTimePoint[]>;
  notices: Notice[];
  windows: StoredMaintenanceWindow[];
}

/** The ids of the records a page shows, by kind. */
interface Shown {
  devices: Set<number>;
  monitors: Set<number>;
  heartbeats: Set<number>;
}

function covers(window: StoredMaintenanceWindow, shown: Shown): boolean {
  if (window.all_devices && shown.devices.size > 0) return true;
  if (window.all_blacklist_monitors && shown.monitors.size > 0) return true;
  if (window.all_heartbeats && shown.heartbeats.size > 0) return true;
  return (
    window.device_ids.some((id) => shown.devices.has(id)) ||
    window.blacklist_monitor_ids.some((id) => shown.monitors.has(id)) ||
    window.heartbeat_ids.some((id) => shown.heartbeats.has(id))
  );
}

/** Reads what `page` shows at `now` (see StatusSource). */
export async function readStatusSource(store: Store, page: OwnedStatusPage, now: number): Promise<StatusSource> {
  const userId = page.user_id;
  const deviceIds = new Set(page.components.flatMap((c) => (c.device_id === undefined ? [] : [c.device_id])));
  const monitorIds = new Set(
    page.components.flatMap((c) => (c.blacklist_monitor_id === undefined ? [] : [c.blacklist_monitor_id])),
  );
  const heartbeatIds = new Set(page.components.flatMap((c) => (c.heartbeat_id === undefined ? [] : [c.heartbeat_id])));
  const days = pageDays(page.time_zone, page.history_days, now);
  const from = Math.min(days[0]!.start, now - page.history_days * 86_400_000);
  const range = { from: toTimestamp(from), to: toTimestamp(now) };
  const noticesSince = toTimestamp(Math.min(from, now - RESOLVED_SHOWN_MS));

  const [records, timelines, heartbeats, notices, windows] = await Promise.all([
    store.componentRecords(userId, { device_ids: [...deviceIds], blacklist_monitor_ids: [...monitorIds] }),
    store.statusTimelines(userId, [...deviceIds], range),
    store.heartbeatTimelines(userId, [...heartbeatIds], range),
    store.recentNotices(page.id, noticesSince, MAX_NOTICES),
    coveringWindows(store, userId, { devices: deviceIds, monitors: monitorIds, heartbeats: heartbeatIds }),
  ]);
  const listings = new Map<number, ListingPeriod[]>();
  const responseTimes = new Map<number, ResponseTimePoint[]>();
  await Promise.all([
    ...records.blacklist_monitors.map(async (monitor) => {
      listings.set(monitor.id, (await store.listListingPeriods(userId, monitor.id, range)) ?? []);
    }),
    ...(page.show_response_times ? records.devices : []).map(async (device) => {
      const query = { ...range, bucket: 'day' as const, time_zone: page.time_zone };
      responseTimes.set(device.id, (await store.listResponseTimes(userId, device.id, query)) ?? []);
    }),
  ]);
  return {
    page,
    from,
    devices: new Map(records.devices.map((d) => [d.id, d])),
    monitors: new Map(records.blacklist_monitors.map((m) => [m.id, m])),
    timelines: new Map(timelines.map((t) => [t.device_id, t])),
    listings,
    heartbeats: new Map(heartbeats.map((h) => [h.heartbeat.id, h])),
    responseTimes,
    notices,
    windows,
  };
}

async function coveringWindows(store: Store, userId: number, shown: Shown): Promise<StoredMaintenanceWindow[]> {
  const found: StoredMaintenanceWindow[] = [];
  for (let afterId = 0; ;) {
    const batch = await store.listMaintenanceWindows(userId, { afterId, limit: WINDOW_BATCH });
    found.push(...batch.filter((w) => covers(w, shown)));
    if (batch.length < WINDOW_BATCH) return found;
    afterId = batch.at(-1)!.id;
  }
}
