import type { HeartbeatTimelineState } from '../heartbeats/heartbeat-state.ts';
import type { AvailabilityReport, ReportRange, StatusTotals } from './report-records.ts';

// Availability from a device's status timeline (docs/engine.md, "Reports"): exact, not sampled.
// `pending` and `validating` count as up (a failure not yet confirmed is not downtime, as Better
// Stack and UptimeRobot count it); maintenance, paused and unknown time count as neither.

/** Seconds from milliseconds, to the millisecond. */
const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * 100 × part / whole to 4 decimals, rounded to the nearest, except that any downtime stays
 * below 100 and any uptime above 0: a short outage in a long range still shows.
 */
function percentage(part: number, whole: number): number {
  const value = Math.round((100 * part * 10_000) / whole) / 10_000;
  if (value === 100 && part < whole) return 99.9999;
  if (value === 0 && part > 0) return 0.0001;
  return value;
}

/**
 * How a heartbeat's timeline states count: `up` and `started` (a run under way) as up; `new`
 * (never told anything) as unknown, under a name no count reads.
 */
export const HEARTBEAT_COUNTED_AS: Record<HeartbeatTimelineState, string> = {
  new: 'unknown',
  up: 'up',
  started: 'up',
  down: 'down',
  paused: 'paused',
  maintenance: 'maintenance',
};

/** A heartbeat's totals as a device's count them (`GET /heartbeats/availability`, a status page's days). */
export function heartbeatTotals(totals: StatusTotals<HeartbeatTimelineState>): StatusTotals<string> {
  const ms: Partial<Record<string, number>> = {};
  for (const [state, length] of Object.entries(totals.ms) as [HeartbeatTimelineState, number][]) {
    const as = HEARTBEAT_COUNTED_AS[state];
    ms[as] = (ms[as] ?? 0) + length;
  }
  return { ...totals, ms };
}

/** The route's answer for `range` from the store's totals (a heartbeat's through `heartbeatTotals`). */
export function availabilityReport(range: ReportRange, totals: StatusTotals<string>): AvailabilityReport {
  const ms = (status: keyof StatusTotals['ms']) => totals.ms[status] ?? 0;
  const upMs = ms('up') + ms('pending') + ms('validating');
  const downMs = ms('down');
  const knownMs = upMs + downMs + ms('maintenance') + ms('paused');
  const rangeMs = Date.parse(range.to) - Date.parse(range.from);
  const counted = upMs + downMs;
  const report: AvailabilityReport = {
    from: range.from,
    to: range.to,
    availability: counted === 0 ? null : percentage(upMs, counted),
    uptime_s: seconds(upMs),
    downtime_s: seconds(downMs),
    maintenance_s: seconds(ms('maintenance')),
    paused_s: seconds(ms('paused')),
    unknown_s: seconds(Math.max(0, rangeMs - knownMs)),
    incidents: totals.down_periods,
    longest_incident_s: seconds(totals.longest_down_ms),
    mean_incident_s: totals.down_periods === 0 ? 0 : seconds(downMs / totals.down_periods),
  };
  if (totals.down_periods > 0) report.mtbf_s = seconds(upMs / totals.down_periods);
  return report;
}
