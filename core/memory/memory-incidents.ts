import type { Timestamp } from '../records/index.ts';
import type { Incident, IncidentAcknowledgement, IncidentCause, IncidentQuery } from '../reports/report-records.ts';

/** An incident as MemoryReports (memory-reports.ts) keeps it. */
export interface StoredIncident {
  id: number;
  userId: number;
  deviceId: number | null;
  heartbeatId: number | null;
  startedAt: Timestamp;
  resolvedAt: Timestamp | null;
  cause: IncidentCause | null;
  locations: Record<string, string> | null;
  acknowledgedAt: Timestamp | null;
  acknowledgedBy: number | null;
}

function incidentOf(i: StoredIncident): Incident {
  return {
    id: i.id,
    device_id: i.deviceId,
    heartbeat_id: i.heartbeatId,
    started_at: i.startedAt,
    resolved_at: i.resolvedAt,
    duration_s: i.resolvedAt === null ? null : Math.floor((Date.parse(i.resolvedAt) - Date.parse(i.startedAt)) / 1000),
    cause: structuredClone(i.cause),
    locations: structuredClone(i.locations),
    acknowledged_at: i.acknowledgedAt,
    acknowledged_by: i.acknowledgedBy,
  };
}

/** The user's incidents overlapping the query's range, newest first (core/store/report-store.ts). */
export function incidentsOf(incidents: readonly StoredIncident[], userId: number, query: IncidentQuery): Incident[] {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  return incidents
    .filter(
      (i) =>
        i.userId === userId &&
        (query.device_id === undefined || i.deviceId === query.device_id) &&
        (query.heartbeat_id === undefined || i.heartbeatId === query.heartbeat_id) &&
        (query.before_id === undefined || i.id < query.before_id) &&
        Date.parse(i.startedAt) < to &&
        (i.resolvedAt === null || Date.parse(i.resolvedAt) > from),
    )
    .sort((a, b) => b.id - a.id)
    .slice(0, query.limit)
    .map(incidentOf);
}

/**
 * Sets the user's incident's acknowledgement unless it has one, keeping the first
 * (core/store/report-store.ts); undefined when it is not the user's.
 */
export function acknowledgeStored(
  incidents: readonly StoredIncident[],
  userId: number,
  incidentId: number,
  keyId: number,
  at: Timestamp,
): IncidentAcknowledgement | undefined {
  const found = incidents.find((i) => i.id === incidentId && i.userId === userId);
  if (found === undefined) return undefined;
  const acknowledged = found.acknowledgedAt === null;
  if (acknowledged) {
    found.acknowledgedAt = new Date(at).toISOString();
    found.acknowledgedBy = keyId;
  }
  return { incident: incidentOf(found), acknowledged };
}
