import { currentOrNext, occurrenceAt } from '../maintenance/window-times.ts';
import type { BlacklistMonitor, Device, Notice, NoticeImpact, StoredMaintenanceWindow } from '../records/index.ts';
import { availabilityReport, HEARTBEAT_COUNTED_AS } from '../reports/availability.ts';
import type { HeartbeatTimeline } from '../store/heartbeat-store.ts';
import { totalsOfTimeline, type TimelineChange } from '../reports/timeline-totals.ts';
import { componentDays, type DayView } from './component-days.ts';
import { pageDays, type PageDay } from './page-time.ts';
import { MAINTENANCE_AHEAD_MS, RESOLVED_SHOWN_MS, type StatusSource } from './status-source.ts';

// What a status page shows at one moment (docs/status-pages.md, "Public routes" and "The page"),
// as plain data: one pure function of what was read (status-source.ts) and the clock, from which
// the HTML, summary.json, the feed and the badges are all written.

export const COMPONENT_STATUSES = [
  'operational',
  'degraded_performance',
  'partial_outage',
  'major_outage',
  'under_maintenance',
] as const;
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];
/** A component's state: Statuspage's five, or not monitored (paused, never checked, gone). */
export type ShownStatus = ComponentStatus | 'not_monitored';
export type Indicator = 'none' | 'minor' | 'major' | 'critical' | 'maintenance';

export const STATUS_WORDS: Record<ShownStatus, string> = {
  operational: 'Operational',
  degraded_performance: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
  under_maintenance: 'Under maintenance',
  not_monitored: 'Not monitored',
};

/** Atlassian Statuspage's own words for each indicator, which its consumers show. */
export const INDICATOR_WORDS: Record<Indicator, string> = {
  none: 'All Systems Operational',
  minor: 'Minor Service Outage',
  major: 'Partial System Outage',
  critical: 'Major System Outage',
  maintenance: 'Service Under Maintenance',
};

export interface ComponentView {
  index: number;
  name: string;
  group: string | null;
  kind: 'device' | 'blacklist_monitor' | 'heartbeat';
  status: ShownStatus;
  /** When its status last changed, as far as the page knows (ms). */
  updatedAt: number;
  /** The target, only when the page shows targets. */
  target: string | null;
  days: DayView[];
  /** Availability over the page's days (reports' arithmetic); null for a blacklist monitor or when nothing counted. */
  availability: number | null;
  /** The timeline over the page's days, for the badges' uptime (devices; heartbeats, their states as counted). */
  changes: TimelineChange<string>[];
  /** Days with a listing (blacklist monitors). */
  listedDays: number;
}

export interface MaintenanceView {
  id: number;
  name: string;
  start: number;
  end: number;
  active: boolean;
  componentIndexes: number[];
  createdAt: number;
}

export interface StatusView {
  page: StatusSource['page'];
  now: number;
  days: PageDay[];
  indicator: Indicator;
  components: ComponentView[];
  /** Not resolved, newest first. */
  activeNotices: Notice[];
  /** Resolved in the last 14 days, newest first. */
  resolvedNotices: Notice[];
  /** Every notice the feed lists, newest first. */
  feedNotices: Notice[];
  maintenance: MaintenanceView[];
  /** The latest change of anything the page shows (ms). */
  updatedAt: number;
  /** The instant after which the clock alone changes what the page shows (a day turns, a window starts, ...). */
  validUntil: number;
}

function deviceStatus(device: Device | undefined): ShownStatus {
  if (device === undefined || !device.is_enabled) return 'not_monitored';
  switch (device.status) {
    case 'pending':
    case 'paused':
      return 'not_monitored';
    case 'maintenance':
      return 'under_maintenance';
    case 'down':
      return 'major_outage';
    case 'validating':
      return 'partial_outage';
    case 'up': {
      // A location failing below the device's quorum leaves it up, but not quite.
      const failing = Object.values(device.locations ?? {}).some((l) => l.status === 'failing');
      return failing ? 'degraded_performance' : 'operational';
    }
  }
}

function monitorStatus(monitor: BlacklistMonitor | undefined, inMaintenance: boolean): ShownStatus {
  if (monitor === undefined || !monitor.is_enabled) return 'not_monitored';
  if (inMaintenance) return 'under_maintenance';
  // `error` is our lookup failing, not the target: its state is not known.
  if (monitor.last_status === 'listed') return 'degraded_performance';
  return monitor.last_status === 'clean' ? 'operational' : 'not_monitored';
}

function heartbeatStatus(timeline: HeartbeatTimeline | undefined, inMaintenance: boolean): ShownStatus {
  const heartbeat = timeline?.heartbeat;
  if (heartbeat === undefined || !heartbeat.is_enabled) return 'not_monitored';
  // Never pinged (`new`) or paused: nothing is awaited of it, so nothing is known.
  if (heartbeat.status === 'new' || heartbeat.status === 'paused') return 'not_monitored';
  if (inMaintenance) return 'under_maintenance';
  return heartbeat.status === 'down' ? 'major_outage' : 'operational';
}

/**
 * When a heartbeat's shown state last changed: its timeline's last change between counted
 * states (a run starting or ending while up is none), else its creation.
 */
function heartbeatSince(timeline: HeartbeatTimeline, changes: readonly TimelineChange<string>[]): number {
  let since = Date.parse(timeline.heartbeat.created_at);
  changes.forEach((change, i) => {
    if (i > 0 && changes[i - 1]!.status !== change.status) since = Math.max(since, change.at);
  });
  return since;
}

/** docs/status-pages.md, "Public routes": the page's one word, from its monitored components. */
export function indicatorOf(statuses: readonly ShownStatus[]): Indicator {
  const monitored = statuses.filter((s) => s !== 'not_monitored');
  if (monitored.length > 0 && monitored.every((s) => s === 'major_outage')) return 'critical';
  if (monitored.includes('major_outage')) return 'major';
  if (monitored.includes('partial_outage') || monitored.includes('degraded_performance')) return 'minor';
  return monitored.includes('under_maintenance') ? 'maintenance' : 'none';
}

const IMPACT_ORDER: Record<NoticeImpact, number> = { none: 0, minor: 1, major: 2, critical: 3 };
export const byImpact = (a: Notice, b: Notice) => IMPACT_ORDER[b.impact] - IMPACT_ORDER[a.impact];

function covered(
  window: StoredMaintenanceWindow,
  component: { device_id?: number; blacklist_monitor_id?: number; heartbeat_id?: number },
) {
  if (component.device_id !== undefined) return window.all_devices || window.device_ids.includes(component.device_id);
  if (component.heartbeat_id !== undefined)
    return window.all_heartbeats || window.heartbeat_ids.includes(component.heartbeat_id);
  return window.all_blacklist_monitors || window.blacklist_monitor_ids.includes(component.blacklist_monitor_id!);
}

/** What the page shows at `now`, from what was read for it. */
export function buildStatusView(source: StatusSource, now: number): StatusView {
  const { page } = source;
  const days = pageDays(page.time_zone, page.history_days, now);
  const range = { from: new Date(source.from).toISOString(), to: new Date(now).toISOString() };
  let validUntil = days.at(-1)!.end;
  const soon = (at: number) => {
    if (at > now) validUntil = Math.min(validUntil, at);
  };

  const maintenance: MaintenanceView[] = [];
  for (const window of source.windows) {
    const occurrence = currentOrNext(window, now);
    if (occurrence === null) continue;
    soon(occurrence.start);
    soon(occurrence.end);
    soon(occurrence.start - MAINTENANCE_AHEAD_MS);
    if (occurrence.start - now > MAINTENANCE_AHEAD_MS) continue;
    const componentIndexes = page.components.flatMap((c, i) => (covered(window, c) ? [i] : []));
    maintenance.push({
      id: window.id,
      name: window.name,
      start: occurrence.start,
      end: occurrence.end,
      active: occurrence.start <= now,
      componentIndexes,
      createdAt: Date.parse(window.created_at),
    });
  }
  maintenance.sort((a, b) => a.start - b.start || a.id - b.id);

  const components: ComponentView[] = page.components.map((component, index) => {
    const base = { index, name: component.name, group: component.group };
    if (component.device_id !== undefined) {
      const device = source.devices.get(component.device_id);
      const changes = (source.timelines.get(component.device_id)?.changes ?? []).map((c) => ({
        status: c.status,
        at: Date.parse(c.at),
      }));
      const totals = totalsOfTimeline(changes, source.from, now);
      return {
        ...base,
        kind: 'device',
        status: deviceStatus(device),
        updatedAt: Date.parse(device?.status_since ?? device?.created_at ?? page.created_at),
        target: page.show_targets && device ? `${device.target_value}:${device.port} (${device.service_type})` : null,
        days: componentDays(days, now, { index, device, changes, source }),
        availability: availabilityReport(range, totals).availability,
        changes,
        listedDays: 0,
      };
    }
    const inMaintenance = source.windows.some((w) => covered(w, component) && occurrenceAt(w, now) !== null);
    if (component.heartbeat_id !== undefined) {
      const timeline = source.heartbeats.get(component.heartbeat_id);
      const changes = (timeline?.changes ?? []).map((c) => ({
        status: HEARTBEAT_COUNTED_AS[c.status],
        at: Date.parse(c.at),
      }));
      const totals = totalsOfTimeline(changes, source.from, now);
      return {
        ...base,
        kind: 'heartbeat',
        status: heartbeatStatus(timeline, inMaintenance),
        updatedAt: timeline === undefined ? Date.parse(page.created_at) : heartbeatSince(timeline, changes),
        target: null,
        days: componentDays(days, now, { index, changes, source }),
        availability: availabilityReport(range, totals).availability,
        changes,
        listedDays: 0,
      };
    }
    const monitor = source.monitors.get(component.blacklist_monitor_id!);
    const listings = source.listings.get(component.blacklist_monitor_id!) ?? [];
    const monitorDays = componentDays(days, now, { index, monitor, listings, source });
    const since = listings.map((l) => Date.parse(l.delisted_at ?? l.listed_at));
    return {
      ...base,
      kind: 'blacklist_monitor',
      status: monitorStatus(monitor, inMaintenance),
      updatedAt: Math.max(Date.parse(monitor?.created_at ?? page.created_at), ...since),
      target: page.show_targets && monitor ? monitor.target_value : null,
      days: monitorDays,
      availability: null,
      changes: [],
      listedDays: monitorDays.filter((d) => d.level === 'minor').length,
    };
  });

  const notices = [...source.notices].sort((a, b) => b.id - a.id);
  const activeNotices = notices.filter((n) => n.status !== 'resolved');
  const resolvedNotices = notices.filter(
    (n) => n.resolved_at !== null && now - Date.parse(n.resolved_at) < RESOLVED_SHOWN_MS,
  );
  for (const n of resolvedNotices) soon(Date.parse(n.resolved_at!) + RESOLVED_SHOWN_MS);
  const feedNotices = notices.filter((n) => n.status !== 'resolved' || Date.parse(n.updated_at) >= source.from);
  for (const n of feedNotices) if (n.status === 'resolved') soon(Date.parse(n.updated_at) + (now - source.from));

  const updatedAt = Math.max(
    Date.parse(page.updated_at),
    ...components.map((c) => c.updatedAt),
    ...notices.map((n) => Date.parse(n.updated_at)),
  );
  return {
    page,
    now,
    days,
    indicator: indicatorOf(components.map((c) => c.status)),
    components,
    activeNotices,
    resolvedNotices,
    feedNotices,
    maintenance,
    updatedAt,
    validUntil,
  };
}
