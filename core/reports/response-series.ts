import type { Timestamp } from '../records.ts';
import type { LatencyRollup, ResponseTimePoint, ResponseTimeQuery } from './report-records.ts';
import {
  compareResponseTimePoints,
  dayStart,
  mergeRollups,
  responseTimePoint,
  rollUpResults,
  type RollupInput,
} from './rollups.ts';
import { zoneDayStart } from './zone-days.ts';

// A device's response-time series from what a store keeps (docs/engine.md, "Reports"): daily rows
// for the UTC days the rollups finished, hourly rows for the hours they finished, and the raw
// results after `rolled_until` that are not rolled up yet. Every store answers through this, so
// the memory store and the SQL store assemble series alike.

/** A stored rollup row, with the p95 a daily row keeps (null for an hourly row, read from its histogram). */
export interface StoredRollup extends LatencyRollup {
  p95_ms?: number | null;
}

/** What a store read for a query (the ranges to read are `seriesReads`'s). */
export interface SeriesParts {
  /** Daily rows (UTC days), only for `bucket=day` without `time_zone`. */
  daily: StoredRollup[];
  hourly: StoredRollup[];
  /** Raw results checked at or after `rolledUntil`. */
  tail: RollupInput[];
}

/** The ranges a store reads for `query`, given how far the rollups went. All half-open [from, to). */
export interface SeriesReads {
  /** Daily rows by start; absent when none are read. */
  daily?: { from: Timestamp; to: Timestamp };
  hourly: { from: Timestamp; to: Timestamp };
  /** Raw results by `checked_at`. */
  tail: { from: Timestamp; to: Timestamp };
}

const max = (a: Timestamp, b: Timestamp) => (Date.parse(a) >= Date.parse(b) ? a : b);
const min = (a: Timestamp, b: Timestamp) => (Date.parse(a) <= Date.parse(b) ? a : b);
const plusDay = (at: Timestamp) => new Date(Date.parse(at) + 86_400_000).toISOString();

/**
 * What to read. Buckets are those whose start lies in the range, and each bucket is whole, so a
 * day bucket reads up to a day past `to` (data there exists only when `to` is in the past).
 */
export function seriesReads(query: ResponseTimeQuery, rolledUntil: Timestamp): SeriesReads {
  if (query.bucket === 'hour') {
    const end = query.to;
    return {
      hourly: { from: query.from, to: min(end, rolledUntil) },
      tail: { from: max(query.from, rolledUntil), to: end },
    };
  }
  const end = plusDay(query.to);
  if (query.time_zone !== undefined) {
    return {
      hourly: { from: query.from, to: min(end, rolledUntil) },
      tail: { from: max(query.from, rolledUntil), to: end },
    };
  }
  // Daily rows exist for the UTC days that ended at or before rolled_until.
  const rolledDays = dayStart(rolledUntil);
  return {
    daily: { from: query.from, to: min(end, rolledDays) },
    hourly: { from: max(query.from, rolledDays), to: min(end, rolledUntil) },
    tail: { from: max(query.from, rolledUntil), to: end },
  };
}

/** The series: every bucket whose start lies in [from, to), by start, probe and location. */
export function responseSeries(query: ResponseTimeQuery, parts: SeriesParts): ResponseTimePoint[] {
  const fresh = [...parts.hourly, ...rollUpResults(parts.tail)];
  let points: ResponseTimePoint[];
  if (query.bucket === 'hour') {
    points = mergeRollups(fresh, (start) => start).map((row) => responseTimePoint(row));
  } else {
    const zone = query.time_zone;
    const startOf =
      zone === undefined ? (start: Timestamp) => dayStart(start) : (start: Timestamp) => zoneDayStart(start, zone);
    points = [
      ...parts.daily.map((row) => responseTimePoint(row, row.p95_ms === undefined ? undefined : row.p95_ms)),
      ...mergeRollups(fresh, startOf).map((row) => responseTimePoint(row)),
    ];
  }
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  return points
    .filter((point) => {
      const at = Date.parse(point.at);
      return at >= from && at < to;
    })
    .sort(compareResponseTimePoints);
}
