import type { IncidentQuery, Incident, MonitoringEvent, NotificationIncident } from '../../core/internal.ts';

/** The part of a store that answers incidents (core/store/report-store.ts). */
export interface IncidentReader {
  listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined>;
}

/** The events that open an incident, and those that close one, with the query field of their record. */
const INCIDENT_EVENTS: Partial<Record<string, { opens: boolean; field: 'device_id' | 'heartbeat_id' }>> = {
  'device.down': { opens: true, field: 'device_id' },
  'device.up': { opens: false, field: 'device_id' },
  'heartbeat.down': { opens: true, field: 'heartbeat_id' },
  'heartbeat.up': { opens: false, field: 'heartbeat_id' },
};

/**
 * The incident a device's or a heartbeat's `down` or `up` event opened or closed
 * (docs/notifications.md, "Email threads"), from the reports' incidents: its id names the
 * PagerDuty alert and the mail thread, so the recovery resolves the alert and answers the mail the
 * down opened, and says how long it lasted. Null for any other event, and when the reports hold
 * none (a store without reports, or a report row already expired).
 */
export async function incidentOf(reader: IncidentReader, event: MonitoringEvent): Promise<NotificationIncident | null> {
  const kind = INCIDENT_EVENTS[event.type];
  if (kind === undefined) return null;
  const at = Date.parse(event.created_at);
  const found = await reader.listIncidents(event.user_id, {
    [kind.field]: event.data.id,
    // A millisecond each side: an incident that closed at the event's moment overlaps it too.
    from: new Date(at - 1).toISOString(),
    to: new Date(at + 1).toISOString(),
    limit: 5,
  });
  const incident = (found ?? []).find((i) =>
    kind.opens ? Date.parse(i.started_at) === at : i.resolved_at !== null && Date.parse(i.resolved_at) === at,
  );
  if (incident === undefined) return null;
  return {
    id: incident.id,
    opened_at: incident.started_at,
    closed_at: incident.resolved_at,
    acknowledged_at: incident.acknowledged_at,
  };
}
