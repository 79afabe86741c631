import type { DeviceStatus, ProbeName, Timestamp } from '../records/index.ts';

// What the reports read and answer (docs/engine.md, "Reports"): incidents, listing periods, the
// status totals availability is computed from, and response times rolled up by hour and day.

/**
 * A device's or a heartbeat's `down` period, opened and closed in the transaction that changes its
 * status. Exactly one of `device_id` and `heartbeat_id` is set.
 */
export interface Incident {
  id: number;
  device_id: number | null;
  heartbeat_id: number | null;
  /** When the record became `down` (a late heartbeat: the deadline it missed). */
  started_at: Timestamp;
  /** When it left `down`; null while it is down. */
  resolved_at: Timestamp | null;
  /** Whole seconds from `started_at` to `resolved_at`; null while open. */
  duration_s: number | null;
  /**
   * The first failing probe of the check that made the device `down`, or for a heartbeat
   * `{probe: "heartbeat", error: <cause>}`; null when not known.
   */
  cause: IncidentCause | null;
  /** Each location's verdict when it opened (devices with `check_locations`); null otherwise. */
  locations: Record<string, string> | null;
  /** When someone first acknowledged it (`POST /incidents/acknowledge`); null until then. */
  acknowledged_at: Timestamp | null;
  /** The id of the API key that acknowledged it; null until then. */
  acknowledged_by: number | null;
}

/** An acknowledgement's answer: the incident as it stands, and whether this call acknowledged it. */
export interface IncidentAcknowledgement {
  incident: Incident;
  /** False when it was acknowledged before: the first acknowledgement is kept. */
  acknowledged: boolean;
}

export interface IncidentCause {
  probe: ProbeName | string;
  error: string | null;
  /** The location the failing probe ran from; absent for a device without `check_locations`. */
  location?: string;
}

/** One zone's listing of a blacklist monitor's target: the blacklist equivalent of an incident. */
export interface ListingPeriod {
  zone: string;
  /** The zone's answer (its return code) when the listing began. */
  answer: string;
  listed_at: Timestamp;
  /** Null while listed. */
  delisted_at: Timestamp | null;
}

/**
 * A device's status timeline over a range (ReportStore.statusTimelines): the last change at or
 * before its start, when there is one, then every change inside it, in order.
 */
export interface StatusTimeline {
  device_id: number;
  changes: { status: DeviceStatus; at: Timestamp }[];
}

/** A half-open time range [from, to). */
export interface ReportRange {
  from: Timestamp;
  to: Timestamp;
}

/**
 * How one device spent a range, by its status timeline (docs/engine.md, "Reports"): what the
 * store answers and `availabilityReport` turns into the route's answer. Time the timeline does not
 * cover (before the device existed, before the timeline began, beyond the report retention) is
 * in no status and becomes `unknown_s`.
 */
export interface StatusTotals<S extends string = DeviceStatus> {
  /** Milliseconds in each status within the range; a status absent from it counts 0. */
  ms: Partial<Record<S, number>>;
  /** `down` periods overlapping the range. */
  down_periods: number;
  /** The longest of them, cut to the range, in milliseconds; 0 when none. */
  longest_down_ms: number;
}

/**
 * `GET /devices/availability`, `GET /heartbeats/availability`. Seconds are whole or fractional as
 * measured; never rounded up.
 */
export interface AvailabilityReport {
  from: Timestamp;
  to: Timestamp;
  /** 100 × uptime / (uptime + downtime), to 4 decimals; null when no such time was counted. */
  availability: number | null;
  uptime_s: number;
  downtime_s: number;
  maintenance_s: number;
  paused_s: number;
  unknown_s: number;
  incidents: number;
  longest_incident_s: number;
  mean_incident_s: number;
  /** Mean time between failures: uptime divided by incidents; absent when there was none. */
  mtbf_s?: number;
}

/** The buckets `GET /devices/response-times` groups by. */
export type ReportBucket = 'hour' | 'day';

/**
 * One device probe's (and location's) checks in one hour or day, as stored: counts, response-time
 * extremes and sum, and a histogram for quantiles (core/reports/latency-histogram.ts).
 */
export interface LatencyRollup {
  device_id: number;
  probe: string;
  /** The location the checks ran from; null for a device without `check_locations`. */
  location: string | null;
  /** The start of the hour or day (UTC). */
  start: Timestamp;
  checks: number;
  failures: number;
  /** Results with a response time, which `sum_ms`, `min_ms`, `max_ms` and the histogram count. */
  timed: number;
  sum_ms: number;
  min_ms: number | null;
  max_ms: number | null;
  /** Sparse bucket counts by bucket index. */
  histogram: Record<number, number>;
}

/** One point of `GET /devices/response-times`. */
export interface ResponseTimePoint {
  /** The bucket's start. */
  at: Timestamp;
  probe: string;
  location?: string;
  checks: number;
  failures: number;
  /** Null when no check of the bucket had a response time. */
  avg_ms: number | null;
  p95_ms: number | null;
  min_ms: number | null;
  max_ms: number | null;
}

/**
 * How far a device's daily rollup rows are final (ReportStore.closedSeriesDays). A UTC day whose
 * rows exist is rolled up once and never changes; retention removes the oldest days.
 */
export interface ClosedSeriesDays {
  /**
   * The start of the first UTC day not rolled up for good: the day `rolled_until` lies in. Every
   * day before it has its final daily rows (or none, when nothing was checked).
   */
  closedUntil: Timestamp;
  /** The start of the device's oldest daily row; null when it has none. No day before it has rows. */
  firstDay: Timestamp | null;
}

export interface ResponseTimeQuery extends ReportRange {
  bucket: ReportBucket;
  /** An IANA zone for `day` buckets; UTC when absent. */
  time_zone?: string;
}

export interface IncidentQuery extends ReportRange {
  /** Only this device's incidents. */
  device_id?: number;
  /** Only this heartbeat's incidents; with neither, every incident of the user's. */
  heartbeat_id?: number;
  limit: number;
  /** Only incidents with a smaller id (the next page). */
  before_id?: number;
}
