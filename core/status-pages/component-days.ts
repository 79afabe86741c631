import type { BlacklistMonitor, Device } from '../records/index.ts';
import { availabilityReport } from '../reports/availability.ts';
import type { ListingPeriod } from '../reports/report-records.ts';
import { totalsOfTimeline, type TimelineChange } from '../reports/timeline-totals.ts';
import { durationText, type PageDay } from './page-time.ts';
import type { StatusSource } from './status-source.ts';

// One component's bars (docs/status-pages.md, "The page"): per local day, a level for its colour
// and shape, and the label that says the same in words, so that no state is told by colour alone.

/**
 * `ok`: no downtime (no listing); `minor`: some (below 5 % of the counted time), or a listing;
 * `major`: more; `maintenance`: only maintenance counted; `none`: nothing known (before the record,
 * paused, or not checked).
 */
export type DayLevel = 'ok' | 'minor' | 'major' | 'maintenance' | 'none';

export interface DayView {
  date: string;
  level: DayLevel;
  /** What the bar says: `2026-12-01: 99.9306 % available, 1 incident, 10 min down`. */
  label: string;
}

/** A device's or a heartbeat's changes count alike (a heartbeat's states as `HEARTBEAT_COUNTED_AS` names them). */
type Input = { index: number; source: StatusSource } & (
  | { device?: Device; changes: TimelineChange<string>[]; monitor?: never; listings?: never }
  | { monitor: BlacklistMonitor | undefined; listings: ListingPeriod[]; device?: never; changes?: never }
);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Notices about the component (or the whole page) written on `day`. */
function noticesOn(day: PageDay, input: Input): number {
  return input.source.notices.filter((n) => {
    const at = Date.parse(n.created_at);
    const about = n.component_indexes.length === 0 || n.component_indexes.includes(input.index);
    return about && at >= day.start && at < day.end;
  }).length;
}

/** The mean response time of a day, over its probes, weighted by their checks. */
function responseMs(input: Input, day: PageDay): number | null {
  if (input.device === undefined) return null;
  const points = input.source.responseTimes.get(input.device.id) ?? [];
  let sum = 0;
  let checks = 0;
  for (const point of points) {
    const at = Date.parse(point.at);
    if (at < day.start || at >= day.end || point.avg_ms === null) continue;
    sum += point.avg_ms * point.checks;
    checks += point.checks;
  }
  return checks === 0 ? null : Math.round(sum / checks);
}

function timelineDay(day: PageDay, now: number, input: Input & { changes: TimelineChange<string>[] }): DayView {
  const to = Math.min(day.end, now);
  const totals = totalsOfTimeline(input.changes, day.start, to);
  const report = availabilityReport(
    { from: new Date(day.start).toISOString(), to: new Date(to).toISOString() },
    totals,
  );
  const extra: string[] = [];
  if (report.incidents > 0) {
    extra.push(plural(report.incidents, 'incident'), `${durationText(report.downtime_s * 1000)} down`);
  }
  if (report.maintenance_s > 0) extra.push(`${durationText(report.maintenance_s * 1000)} in maintenance`);
  const ms = responseMs(input, day);
  if (ms !== null) extra.push(`${ms} ms average response`);
  const notices = noticesOn(day, input);
  if (notices > 0) extra.push(plural(notices, 'notice'));
  const tail = extra.length === 0 ? '' : `, ${extra.join(', ')}`;
  if (report.availability === null) {
    const what = report.maintenance_s > 0 ? 'in maintenance' : report.paused_s > 0 ? 'not monitored' : 'no data';
    return {
      date: day.date,
      level: report.maintenance_s > 0 ? 'maintenance' : 'none',
      label: `${day.date}: ${what}${tail}`,
    };
  }
  const level = report.downtime_s === 0 ? 'ok' : report.availability >= 95 ? 'minor' : 'major';
  return { date: day.date, level, label: `${day.date}: ${report.availability} % available${tail}` };
}

function monitorDay(day: PageDay, now: number, input: Input & { listings: ListingPeriod[] }): DayView {
  const { monitor } = input;
  const to = Math.min(day.end, now);
  if (monitor === undefined || Date.parse(monitor.created_at) >= to) {
    return { date: day.date, level: 'none', label: `${day.date}: no data` };
  }
  const zones = new Set(
    input.listings
      // A listing found by the check at `now` is today's already.
      .filter((l) => Date.parse(l.listed_at) < Math.max(to, now + 1) && Date.parse(l.listed_at) < day.end)
      .filter((l) => l.delisted_at === null || Date.parse(l.delisted_at) > day.start)
      .map((l) => l.zone),
  );
  const notices = noticesOn(day, input);
  const tail = notices > 0 ? `, ${plural(notices, 'notice')}` : '';
  if (zones.size === 0) return { date: day.date, level: 'ok', label: `${day.date}: not listed${tail}` };
  return { date: day.date, level: 'minor', label: `${day.date}: listed on ${plural(zones.size, 'blacklist')}${tail}` };
}

/** The component's bars, one per day of `days`. */
export function componentDays(days: readonly PageDay[], now: number, input: Input): DayView[] {
  if (input.changes !== undefined) {
    const timeline = input as Input & { changes: TimelineChange<string>[] };
    return days.map((day) => timelineDay(day, now, timeline));
  }
  const monitor = input as Input & { listings: ListingPeriod[] };
  return days.map((day) => monitorDay(day, now, monitor));
}
