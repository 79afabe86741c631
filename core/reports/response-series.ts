import type { Timestamp } from '../records/index.ts';
import type { LatencyRollup, ResponseTimePoint, ResponseTimeQuery } from './report-records.ts';
import {
  compareResponseTimePoints,
  DAY_MS,
  dayStart,
  floorTo,
  HOUR_MS,
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
//
// Every bucket that overlaps [from, to) is answered, counting the checks inside the range. A range
// that begins or ends inside an hour cuts that hour: an hour not rolled up yet is read raw up to
// the cut; a rolled hour is counted from its raw results while the retention has left all of them
// (their counts match its rollup rows), and whole, from its rollup rows, once it has not.

/** A stored rollup row, with the p95 a daily row keeps (null for an hourly row, read from its histogram). */
export interface StoredRollup extends LatencyRollup {
  p95_ms?: number | null;
}

/** A half-open span of time, [from, to). */
export interface SeriesRange {
  from: Timestamp;
  to: Timestamp;
}

/** What a store read for a query (the ranges to read are `seriesReads`'s). */
export interface SeriesParts {
  /** Daily rows (UTC days) by start in `SeriesReads.daily`. */
  daily: StoredRollup[];
  /** Hourly rows by start in each of `SeriesReads.hourly`. */
  hourly: StoredRollup[];
  /** Raw results by `checked_at` in each of `SeriesReads.raw`. */
  raw: RollupInput[];
}

/** A rolled hour the range cuts: the part of it inside the range. */
interface CutHour {
  /** The hour's start. */
  start: number;
  from: number;
  to: number;
}

/** The ranges a store reads for `query`, given how far the rollups went. All half-open [from, to), none overlapping. */
export interface SeriesReads {
  /** Daily rows by start; absent when none are read. */
  daily?: SeriesRange;
  /** Hourly rows by start: the rolled hours that overlap the range, but those of `daily`'s days. */
  hourly: SeriesRange[];
  /** Raw results by `checked_at`: the cut rolled hours whole, and the range after `rolled_until`. */
  raw: SeriesRange[];
  /** The rolled hours the range cuts (its first and its last); the store need not read it. */
  cut: CutHour[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const ceilTo = (ms: number, unit: number) => -floorTo(-ms, unit);

/**
 * What to read. The rolled hours that overlap the range come from hourly rows, or daily rows for
 * the UTC days wholly inside it (bucket=day without time_zone); the hours not rolled yet from raw
 * results up to `to`; each rolled hour the range cuts also from its raw results, whole.
 */
export function seriesReads(query: ResponseTimeQuery, rolledUntil: Timestamp): SeriesReads {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const rolled = Date.parse(rolledUntil);
  const reads: SeriesReads = { hourly: [], raw: [], cut: [] };
  const cutHours = new Set([floorTo(from, HOUR_MS), floorTo(to - 1, HOUR_MS)]);
  for (const start of cutHours) {
    const inside = { start, from: Math.max(from, start), to: Math.min(to, start + HOUR_MS) };
    const isCut = inside.from > start || inside.to < start + HOUR_MS;
    if (!isCut || start + HOUR_MS > rolled) continue;
    reads.cut.push(inside);
    reads.raw.push({ from: iso(start), to: iso(start + HOUR_MS) });
  }
  if (Math.max(from, rolled) < to) reads.raw.push({ from: iso(Math.max(from, rolled)), to: query.to });

  const hoursFrom = floorTo(from, HOUR_MS);
  const hoursTo = Math.min(ceilTo(to, HOUR_MS), rolled);
  const hours = (a: number, b: number) => {
    if (a < b) reads.hourly.push({ from: iso(a), to: iso(b) });
  };
  // Daily rows exist for the UTC days that ended at or before the day rolled_until lies in.
  const daysFrom = ceilTo(from, DAY_MS);
  const daysTo = Math.min(floorTo(to, DAY_MS), floorTo(rolled, DAY_MS));
  if (query.bucket === 'day' && query.time_zone === undefined && daysFrom < daysTo) {
    reads.daily = { from: iso(daysFrom), to: iso(daysTo) };
    hours(hoursFrom, daysFrom);
    hours(daysTo, hoursTo);
  } else {
    hours(hoursFrom, hoursTo);
  }
  return reads;
}

const keyOf = (row: { probe: string; location: string | null }) => `${row.probe}\u0000${row.location ?? ''}`;

/** Whether `raw` holds every check `rows` (the hourly rows of the same hour) counted. */
function allKept(rows: readonly LatencyRollup[], raw: readonly RollupInput[]): boolean {
  const counts = new Map<string, number>();
  for (const result of raw) counts.set(keyOf(result), (counts.get(keyOf(result)) ?? 0) + 1);
  for (const row of rows) {
    if (counts.get(keyOf(row)) !== row.checks) return false;
    counts.delete(keyOf(row));
  }
  return counts.size === 0;
}

/**
 * The series: every bucket that overlaps [from, to), by start, probe and location. `reads` is what
 * `seriesReads` asked the store for, and `parts` what it read.
 */
export function responseSeries(query: ResponseTimeQuery, reads: SeriesReads, parts: SeriesParts): ResponseTimePoint[] {
  const cutRows = new Map<number, LatencyRollup[]>(reads.cut.map((cut) => [cut.start, []]));
  const cutRaw = new Map<number, RollupInput[]>(reads.cut.map((cut) => [cut.start, []]));
  const hourly: LatencyRollup[] = [];
  for (const row of parts.hourly) {
    const rows = cutRows.get(Date.parse(row.start));
    (rows ?? hourly).push(row);
  }
  const tail: RollupInput[] = [];
  for (const result of parts.raw) {
    const results = cutRaw.get(floorTo(Date.parse(result.checked_at), HOUR_MS));
    (results ?? tail).push(result);
  }
  const fresh = [...hourly, ...rollUpResults(tail)];
  for (const cut of reads.cut) {
    const rows = cutRows.get(cut.start)!;
    const raw = cutRaw.get(cut.start)!;
    if (!allKept(rows, raw)) {
      fresh.push(...rows);
      continue;
    }
    const inside = raw.filter((result) => {
      const at = Date.parse(result.checked_at);
      return at >= cut.from && at < cut.to;
    });
    fresh.push(...rollUpResults(inside));
  }
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
  return points.sort(compareResponseTimePoints);
}
