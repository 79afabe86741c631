import type { DeviceStatus } from '../records/index.ts';
import type { StatusTotals } from './report-records.ts';

/** A change of a status timeline: the status from `at` (ms since the epoch) on. */
export interface TimelineChange<S extends string = DeviceStatus> {
  status: S;
  at: number;
}

/**
 * How a device (or a heartbeat, by its own states) spent [from, to), from its changes in time order (docs/reports.md,
 * "Availability"): each status lasts from its change to the next, or to `to`. Time before the
 * first change is in no status (it becomes `unknown_s`); a `down` period counts when it overlaps
 * the range, and the longest is cut to it. The memory store's totals and a status page's days
 * both come from here; the SQL store reaches the same sums from its running totals.
 */
export function totalsOfTimeline<S extends string = DeviceStatus>(
  changes: readonly TimelineChange<S>[],
  from: number,
  to: number,
): StatusTotals<S> {
  const totals: StatusTotals<S> = { ms: {}, down_periods: 0, longest_down_ms: 0 };
  changes.forEach((change, i) => {
    const next = changes[i + 1]?.at ?? to;
    const start = Math.max(change.at, from);
    const end = Math.min(next, to);
    if (change.at >= to || next <= from || end < start) return;
    const length = end - start;
    totals.ms[change.status] = (totals.ms[change.status] ?? 0) + length;
    if (change.status === 'down') {
      totals.down_periods += 1;
      totals.longest_down_ms = Math.max(totals.longest_down_ms, length);
    }
  });
  return totals;
}
