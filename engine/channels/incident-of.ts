import type { IncidentQuery, Incident, MonitoringEvent, NotificationIncident } from '../../core/internal.ts';

/** The part of a store that answers incidents (core/store/report-store.ts). */
export interface IncidentReader {
  listIncidents(userId: number, query: IncidentQuery): Promise<Incident[] | undefined>;
}

/**
 * The incident a device's `down` or `up` event opened or closed (docs/notifications.md, "Email
 * threads"), from the reports' incidents: its id names the PagerDuty alert and the mail thread, so
 * the recovery resolves the alert and answers the mail the down opened, and says how long it
 * lasted. Null for any other event, and when the reports hold none (a store without reports, or
 * a report row already expired).
 */
export async function incidentOf(reader: IncidentReader, event: MonitoringEvent): Promise<NotificationIncident | null> {
  if (event.type !== 'device.down' && event.type !== 'device.up') return null;
  const at = Date.parse(event.created_at);
  const found = await reader.listIncidents(event.user_id, {
    device_id: event.data.id,
    // A millisecond each side: an incident that closed at the event's moment overlaps it too.
    from: new Date(at - 1).toISOString(),
    to: new Date(at + 1).toISOString(),
    limit: 5,
  });
  const incident = (found ?? []).find((i) =>
    event.type === 'device.down'
      ? Date.parse(i.started_at) === at
      : i.resolved_at !== null && Date.parse(i.resolved_at) === at,
  );
  if (incident === undefined) return null;
  return {
    id: incident.id,
    opened_at: incident.started_at,
    closed_at: incident.resolved_at,
    acknowledged_at: incident.acknowledged_at,
  };
}
