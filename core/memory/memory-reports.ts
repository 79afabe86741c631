import type { BlacklistMonitor, CheckResult, Device, DeviceStatus, Timestamp } from '../records/index.ts';
import type {
  ClosedSeriesDays,
  Incident,
  IncidentAcknowledgement,
  IncidentCause,
  IncidentQuery,
  LatencyRollup,
  ListingPeriod,
  ReportRange,
  ResponseTimePoint,
  ResponseTimeQuery,
  StatusTimeline,
  StatusTotals,
} from '../reports/report-records.ts';
import { totalsOfTimeline, type TimelineChange } from '../reports/timeline-totals.ts';
import { responseSeries, seriesReads, type StoredRollup } from '../reports/response-series.ts';
import type { HeartbeatTimelineChange, HeartbeatTimelineState } from '../heartbeats/heartbeat-state.ts';
import { DAY_MS, HOUR_MS, dayStart, hourStart, mergeRollups, rollUpResults, rollupP95 } from '../reports/rollups.ts';
import type { RollupInput } from '../reports/rollups.ts';
import { acknowledgeStored, incidentsOf, type StoredIncident } from './memory-incidents.ts';

// The memory store's reports (docs/engine.md, "Reports"): what the SQL store's triggers and
// report tables keep, kept in JS. The memory store tells it of every status change and every
// change of a monitor's listings, at the points where it makes them.

/** One change of a timeline: a device's (key `d<id>`) or a heartbeat's (`h<id>`). */
interface StatusChange {
  id: number;
  key: string;
  to: string;
  at: number;
}

const deviceKey = (id: number) => `d${id}`;
const heartbeatKey = (id: number) => `h${id}`;

interface StoredPeriod extends ListingPeriod {
  id: number;
  monitorId: number;
}

/** The failing location that checked last (the one whose result made the device `down`). */
function failingLocation(device: Device): string | undefined {
  let found: [string, string] | undefined;
  for (const [name, state] of Object.entries(device.locations ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (state.status !== 'failing') continue;
    const at = state.last_checked_at ?? '';
    if (found === undefined || at > found[1]) found = [name, at];
  }
  return found?.[0];
}

/** The first failing probe of a device's last results, by probe name (report-triggers.ts does the same). */
function causeOf(device: Device): IncidentCause | null {
  const results = device.last_results as Record<string, { ok: boolean; error: string | null }>;
  for (const probe of Object.keys(results).sort()) {
    const result = results[probe]!;
    if (result.ok) continue;
    const location = failingLocation(device);
    return { probe, error: result.error, ...(location === undefined ? {} : { location }) };
  }
  return null;
}

function locationVerdicts(device: Device): Record<string, string> | null {
  if (device.locations === null) return null;
  return Object.fromEntries(Object.entries(device.locations).map(([name, state]) => [name, state.status]));
}

/** The raw device results a rollup reads, checked in [from, to), of one device or of all. */
export function rollupInputOf(
  results: Iterable<{ kind: string; resourceId: number; result: CheckResult }>,
  range: { from: Timestamp; to: Timestamp },
  deviceId?: number,
): RollupInput[] {
  const [from, to] = [Date.parse(range.from), Date.parse(range.to)];
  const out: RollupInput[] = [];
  for (const { kind, resourceId, result } of results) {
    if (kind !== 'device' || (deviceId !== undefined && resourceId !== deviceId)) continue;
    const at = Date.parse(result.checked_at);
    if (at < from || at >= to) continue;
    // The memory store checks devices from one location: none is named.
    out.push({
      device_id: resourceId,
      probe: result.probe,
      location: null,
      checked_at: result.checked_at,
      ok: result.ok,
      response_ms: result.response_ms,
    });
  }
  return out;
}

const rollupKey = (row: LatencyRollup) =>
  `${row.device_id}\u0000${row.probe}\u0000${row.location ?? ''}\u0000${row.start}`;

export class MemoryReports {
  #nextId = { change: 1, incident: 1, period: 1 };
  #changes: StatusChange[] = [];
  /** Each timeline's last change's time, which a change is never dated before. */
  readonly #lastChangeAt = new Map<string, number>();
  #incidents: StoredIncident[] = [];
  #periods: StoredPeriod[] = [];
  #hourly = new Map<string, StoredRollup>();
  #daily = new Map<string, StoredRollup>();
  /** Hours before it are rolled up; as a database migrated at the store's start, rollups begin then. */
  #rolledUntil: number;

  constructor(startMs: number) {
    this.#rolledUntil = Date.parse(hourStart(startMs));
  }

  /** Where the rollups have come to: raw results from then on are not rolled up yet. */
  get rolledUntil(): number {
    return this.#rolledUntil;
  }

  /**
   * A device's status became `device.status` (from `from`, null when it was created), at its
   * `status_since`, never before `fromSince`, the previous status's (as the SQL triggers date it).
   */
  statusChanged(userId: number, device: Device, from: DeviceStatus | null, fromSince: Timestamp | null = null): void {
    if (from === device.status) return;
    const since = device.status_since ?? device.created_at;
    // Nor before the device's last change: the timeline stays in order, as the SQL stores keep it.
    const key = deviceKey(device.id);
    const atMs = Math.max(
      Date.parse(since),
      fromSince === null ? -Infinity : Date.parse(fromSince),
      this.#lastChangeAt.get(key) ?? -Infinity,
    );
    const at = new Date(atMs).toISOString();
    this.#lastChangeAt.set(key, atMs);
    this.#changes.push({ id: this.#nextId.change++, key, to: device.status, at: atMs });
    if (from === 'down') {
      for (const incident of this.#incidents) {
        if (incident.deviceId === device.id && incident.resolvedAt === null)
          incident.resolvedAt = new Date(at).toISOString();
      }
    }
    if (device.status === 'down') {
      this.#incidents.push({
        id: this.#nextId.incident++,
        userId,
        deviceId: device.id,
        heartbeatId: null,
        startedAt: new Date(at).toISOString(),
        resolvedAt: null,
        cause: causeOf(device),
        locations: locationVerdicts(device),
        acknowledgedAt: null,
        acknowledgedBy: null,
      });
    }
  }

  /**
   * A heartbeat's timeline changed (core/heartbeats/heartbeat-state.ts): dated at `change.at`, never
   * before its last change, closing its incident when it leaves `down` and opening one when it
   * enters it.
   */
  heartbeatChanged(userId: number, heartbeatId: number, change: HeartbeatTimelineChange): void {
    const key = heartbeatKey(heartbeatId);
    const atMs = Math.max(Date.parse(change.at), this.#lastChangeAt.get(key) ?? -Infinity);
    const at = new Date(atMs).toISOString();
    this.#lastChangeAt.set(key, atMs);
    this.#changes.push({ id: this.#nextId.change++, key, to: change.to, at: atMs });
    if (change.from === 'down') {
      for (const incident of this.#incidents) {
        if (incident.heartbeatId === heartbeatId && incident.resolvedAt === null) incident.resolvedAt = at;
      }
    }
    if (change.to === 'down') {
      this.#incidents.push({
        id: this.#nextId.incident++,
        userId,
        deviceId: null,
        heartbeatId,
        startedAt: at,
        resolvedAt: null,
        cause: structuredClone(change.cause),
        locations: null,
        acknowledgedAt: null,
        acknowledgedBy: null,
      });
    }
  }

  dropHeartbeat(id: number): void {
    const key = heartbeatKey(id);
    this.#lastChangeAt.delete(key);
    this.#changes = this.#changes.filter((c) => c.key !== key);
    this.#incidents = this.#incidents.filter((i) => i.heartbeatId !== id);
  }

  /** A monitor's listings were written: periods open for new (zone, since) pairs and close for gone ones. */
  listingsChanged(monitor: BlacklistMonitor): void {
    const listed = new Set(monitor.listings.map((l) => `${l.zone}\u0000${Date.parse(l.since)}`));
    const open = new Set<string>();
    const closedAt = monitor.last_checked_at ?? new Date().toISOString();
    for (const period of this.#periods) {
      if (period.monitorId !== monitor.id || period.delisted_at !== null) continue;
      const key = `${period.zone}\u0000${Date.parse(period.listed_at)}`;
      if (listed.has(key)) open.add(key);
      else period.delisted_at = closedAt;
    }
    for (const listing of monitor.listings) {
      if (open.has(`${listing.zone}\u0000${Date.parse(listing.since)}`)) continue;
      this.#periods.push({
        id: this.#nextId.period++,
        monitorId: monitor.id,
        zone: listing.zone,
        answer: listing.answer,
        listed_at: new Date(listing.since).toISOString(),
        delisted_at: null,
      });
    }
  }

  dropDevice(id: number): void {
    const key = deviceKey(id);
    this.#lastChangeAt.delete(key);
    this.#changes = this.#changes.filter((c) => c.key !== key);
    this.#incidents = this.#incidents.filter((i) => i.deviceId !== id);
    for (const rows of [this.#hourly, this.#daily]) {
      for (const [key, row] of rows) if (row.device_id === id) rows.delete(key);
    }
  }

  dropMonitor(id: number): void {
    this.#periods = this.#periods.filter((p) => p.monitorId !== id);
  }

  statusTotals(deviceId: number, range: ReportRange): StatusTotals {
    return totalsOfTimeline(
      this.#timelineOf<DeviceStatus>(deviceKey(deviceId)),
      Date.parse(range.from),
      Date.parse(range.to),
    );
  }

  heartbeatTotals(heartbeatId: number, range: ReportRange): StatusTotals<HeartbeatTimelineState> {
    const changes = this.#timelineOf<HeartbeatTimelineState>(heartbeatKey(heartbeatId));
    return totalsOfTimeline(changes, Date.parse(range.from), Date.parse(range.to));
  }

  /** ReportStore.statusTimelines for one device: the last change at or before `from`, then those inside. */
  timeline(deviceId: number, range: ReportRange): StatusTimeline {
    return { device_id: deviceId, changes: this.#within<DeviceStatus>(deviceKey(deviceId), range) };
  }

  /** Store.heartbeatTimelines for one heartbeat, as `timeline`. */
  heartbeatTimeline(heartbeatId: number, range: ReportRange): { status: HeartbeatTimelineState; at: string }[] {
    return this.#within(heartbeatKey(heartbeatId), range);
  }

  #within<S extends string>(key: string, range: ReportRange): { status: S; at: string }[] {
    const changes = this.#timelineOf<S>(key);
    const first = changes.findLastIndex((c) => c.at <= Date.parse(range.from));
    const kept = changes.slice(Math.max(first, 0)).filter((c) => c.at < Date.parse(range.to));
    return kept.map((c) => ({ status: c.status, at: new Date(c.at).toISOString() }));
  }

  /** One timeline's changes (a device's or a heartbeat's, by key), in time order. */
  #timelineOf<S extends string>(key: string): TimelineChange<S>[] {
    return this.#changes
      .filter((c) => c.key === key)
      .sort((a, b) => a.at - b.at || a.id - b.id)
      .map((c) => ({ status: c.to as S, at: c.at }));
  }

  responseTimes(
    deviceId: number,
    query: ResponseTimeQuery,
    results: (range: { from: Timestamp; to: Timestamp }) => RollupInput[],
  ): ResponseTimePoint[] {
    const reads = seriesReads(query, new Date(this.#rolledUntil).toISOString());
    const inRange = (rows: Map<string, StoredRollup>, range: { from: Timestamp; to: Timestamp }) => {
      const [from, to] = [Date.parse(range.from), Date.parse(range.to)];
      return [...rows.values()]
        .filter((row) => row.device_id === deviceId && Date.parse(row.start) >= from && Date.parse(row.start) < to)
        .map((row) => structuredClone(row));
    };
    return responseSeries(query, reads, {
      daily: reads.daily === undefined ? [] : inRange(this.#daily, reads.daily),
      hourly: reads.hourly.flatMap((range) => inRange(this.#hourly, range)),
      raw: reads.raw.flatMap((range) => results(range)),
    });
  }

  /** ReportStore.closedSeriesDays: days before the one `rolledUntil` lies in are final. */
  closedDays(deviceId: number): ClosedSeriesDays {
    let firstDay: Timestamp | null = null;
    for (const row of this.#daily.values()) {
      if (row.device_id === deviceId && (firstDay === null || row.start < firstDay)) firstDay = row.start;
    }
    return { closedUntil: dayStart(this.#rolledUntil), firstDay };
  }

  incidents(userId: number, query: IncidentQuery): Incident[] {
    return incidentsOf(this.#incidents, userId, query);
  }

  /** See memory-incidents.ts. */
  acknowledge(userId: number, incidentId: number, keyId: number, at: Timestamp): IncidentAcknowledgement | undefined {
    return acknowledgeStored(this.#incidents, userId, incidentId, keyId, at);
  }

  listingPeriods(monitorId: number, range: ReportRange): ListingPeriod[] {
    const from = Date.parse(range.from);
    const to = Date.parse(range.to);
    return this.#periods
      .filter(
        (p) =>
          p.monitorId === monitorId &&
          Date.parse(p.listed_at) < to &&
          (p.delisted_at === null || Date.parse(p.delisted_at) > from),
      )
      .sort(
        (a, b) => Date.parse(a.listed_at) - Date.parse(b.listed_at) || (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0),
      )
      .map(({ zone, answer, listed_at, delisted_at }) => ({ zone, answer, listed_at, delisted_at }));
  }

  /** ReportUpkeep.rollUpResults; `results` reads the raw device results of an hour. */
  rollUp(before: Timestamp, maxHours: number, results: (range: { from: Timestamp; to: Timestamp }) => RollupInput[]) {
    const end = Date.parse(before);
    let rolled = 0;
    while (rolled < maxHours && this.#rolledUntil + HOUR_MS <= end) {
      const hour = this.#rolledUntil;
      const range = { from: new Date(hour).toISOString(), to: new Date(hour + HOUR_MS).toISOString() };
      for (const row of rollUpResults(results(range))) this.#hourly.set(rollupKey(row), row);
      if ((hour + HOUR_MS) % DAY_MS === 0) {
        const day = Date.parse(dayStart(hour));
        const hours = [...this.#hourly.values()].filter((row) => {
          const start = Date.parse(row.start);
          return start >= day && start < hour + HOUR_MS;
        });
        for (const row of mergeRollups(hours, dayStart))
          this.#daily.set(rollupKey(row), { ...row, p95_ms: rollupP95(row) });
      }
      this.#rolledUntil = hour + HOUR_MS;
      rolled += 1;
    }
    return rolled;
  }

  /** ReportUpkeep.deleteReportsBefore. */
  deleteBefore(before: Timestamp, limit: number): number {
    const cutoff = Date.parse(before);
    let deleted = 0;
    const take = () => deleted < limit && ++deleted > 0;
    for (const rows of [this.#hourly, this.#daily]) {
      for (const [key, row] of rows) if (Date.parse(row.start) < cutoff && take()) rows.delete(key);
    }
    this.#incidents = this.#incidents.filter(
      (i) => !(i.resolvedAt !== null && Date.parse(i.resolvedAt) < cutoff && take()),
    );
    this.#periods = this.#periods.filter(
      (p) => !(p.delisted_at !== null && Date.parse(p.delisted_at) < cutoff && take()),
    );
    // A change stays while it is its timeline's last at or before the cutoff.
    const lastKept = new Map<string, StatusChange>();
    for (const c of this.#changes) {
      if (c.at > cutoff) continue;
      const kept = lastKept.get(c.key);
      if (kept === undefined || c.at > kept.at || (c.at === kept.at && c.id > kept.id)) lastKept.set(c.key, c);
    }
    this.#changes = this.#changes.filter((c) => !(c.at < cutoff && lastKept.get(c.key) !== c && take()));
    return deleted;
  }
}
