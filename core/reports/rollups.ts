import type { Timestamp } from '../records/index.ts';
import { addHistogram, bucketOf, quantile } from './latency-histogram.ts';
import type { LatencyRollup, ResponseTimePoint } from './report-records.ts';

// Rolling raw results up into hours and hours into days (docs/engine.md, "Reports"). Every store
// uses these, so the memory store and the SQL store count alike.

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The raw result fields a rollup reads. */
export interface RollupInput {
  device_id: number;
  probe: string;
  location: string | null;
  checked_at: Timestamp;
  ok: boolean;
  response_ms: number | null;
}

/** `ms` (milliseconds since the epoch) rounded down to a whole `unit` (an hour, a day), before 1970 too. */
export function floorTo(ms: number, unit: number): number {
  return ms - (((ms % unit) + unit) % unit);
}

/** The start (UTC, ISO 8601) of the hour `at` lies in. */
export function hourStart(at: Timestamp | number): Timestamp {
  return new Date(floorTo(typeof at === 'number' ? at : Date.parse(at), HOUR_MS)).toISOString();
}

/** The start (UTC, ISO 8601) of the UTC day `at` lies in. */
export function dayStart(at: Timestamp | number): Timestamp {
  return new Date(floorTo(typeof at === 'number' ? at : Date.parse(at), DAY_MS)).toISOString();
}

function rollupKey(id: number, probe: string, location: string | null, start: string): string {
  return `${id}\u0000${probe}\u0000${location ?? ''}\u0000${start}`;
}

function emptyRollup(
  from: Omit<LatencyRollup, 'checks' | 'failures' | 'timed' | 'sum_ms' | 'min_ms' | 'max_ms' | 'histogram'>,
): LatencyRollup {
  return { ...from, checks: 0, failures: 0, timed: 0, sum_ms: 0, min_ms: null, max_ms: null, histogram: {} };
}

/** Adds `source` into `target` (same device, probe and location). */
export function addRollup(target: LatencyRollup, source: LatencyRollup): void {
  target.checks += source.checks;
  target.failures += source.failures;
  target.timed += source.timed;
  target.sum_ms += source.sum_ms;
  if (source.min_ms !== null)
    target.min_ms = target.min_ms === null ? source.min_ms : Math.min(target.min_ms, source.min_ms);
  if (source.max_ms !== null)
    target.max_ms = target.max_ms === null ? source.max_ms : Math.max(target.max_ms, source.max_ms);
  addHistogram(target.histogram, source.histogram);
}

/**
 * Raw device results rolled up into one row per device, probe, location and hour. Response times count
 * every result that has one, passed or failed: a slow failure is still a measured answer.
 */
export function rollUpResults(results: Iterable<RollupInput>): LatencyRollup[] {
  const rows = new Map<string, LatencyRollup>();
  for (const r of results) {
    const start = hourStart(r.checked_at);
    const key = rollupKey(r.device_id, r.probe, r.location, start);
    let row = rows.get(key);
    if (row === undefined) {
      row = emptyRollup({ device_id: r.device_id, probe: r.probe, location: r.location, start });
      rows.set(key, row);
    }
    row.checks += 1;
    if (!r.ok) row.failures += 1;
    if (r.response_ms !== null) {
      const ms = r.response_ms;
      row.timed += 1;
      row.sum_ms += ms;
      row.min_ms = row.min_ms === null ? ms : Math.min(row.min_ms, ms);
      row.max_ms = row.max_ms === null ? ms : Math.max(row.max_ms, ms);
      const bucket = bucketOf(ms);
      row.histogram[bucket] = (row.histogram[bucket] ?? 0) + 1;
    }
  }
  return [...rows.values()];
}

/**
 * Rollups merged into buckets: `startOf` names the bucket each row's start falls in (a UTC day,
 * or a day in a time zone). Rows of one device, probe and location in one bucket become one.
 */
export function mergeRollups(rows: Iterable<LatencyRollup>, startOf: (start: Timestamp) => Timestamp): LatencyRollup[] {
  const merged = new Map<string, LatencyRollup>();
  for (const row of rows) {
    const start = startOf(row.start);
    const key = rollupKey(row.device_id, row.probe, row.location, start);
    let target = merged.get(key);
    if (target === undefined) {
      target = emptyRollup({
        device_id: row.device_id,
        probe: row.probe,
        location: row.location,
        start,
      });
      merged.set(key, target);
    }
    addRollup(target, row);
  }
  return [...merged.values()];
}

/** The p95 of a rollup, in whole milliseconds; null when nothing was timed. */
export function rollupP95(row: LatencyRollup): number | null {
  if (row.min_ms === null || row.max_ms === null) return null;
  return quantile(row.histogram, 0.95, row.min_ms, row.max_ms);
}

/** A rollup as a point of the response-time series; `p95` when the store kept it, else from the histogram. */
export function responseTimePoint(row: LatencyRollup, p95: number | null = rollupP95(row)): ResponseTimePoint {
  return {
    at: row.start,
    probe: row.probe,
    ...(row.location === null ? {} : { location: row.location }),
    checks: row.checks,
    failures: row.failures,
    avg_ms: row.timed === 0 ? null : Math.round((row.sum_ms / row.timed) * 10) / 10,
    p95_ms: p95,
    min_ms: row.min_ms,
    max_ms: row.max_ms,
  };
}

/** Points in series order: by bucket start, then probe, then location. */
export function compareResponseTimePoints(a: ResponseTimePoint, b: ResponseTimePoint): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  if (a.probe !== b.probe) return a.probe < b.probe ? -1 : 1;
  const la = a.location ?? '';
  const lb = b.location ?? '';
  return la === lb ? 0 : la < lb ? -1 : 1;
}
