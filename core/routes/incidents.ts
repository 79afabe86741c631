import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import type { IncidentQuery } from '../reports/report-records.ts';
import { parseIdAlone } from '../validation/list-query.ts';
import { parseIncidentsQuery } from '../validation/report-query.ts';
import { reusedAnswer } from './reused-answer.ts';
import type { RouteContext } from './route-context.ts';

/** The query of the page after one that ended at incident `lastId`: the same range, device and size. */
function nextPage(query: IncidentQuery, lastId: number): string {
  const params = new URLSearchParams();
  if (query.device_id !== undefined) params.set('device_id', String(query.device_id));
  if (query.heartbeat_id !== undefined) params.set('heartbeat_id', String(query.heartbeat_id));
  params.set('from', query.from);
  params.set('to', query.to);
  params.set('limit', String(query.limit));
  params.set('before_id', String(lastId));
  return params.toString();
}

/**
 * `GET /incidents?device_id=&heartbeat_id=&from=&to=&limit=&before_id=` (docs/contract.md, "6.12 Reports"): the
 * key's user's incidents that overlap the range, newest first, one page at a time.
 *
 * The page is read as `limit + 1` rows, as the results routes read theirs, and the `Link` to the
 * next page repeats the range as this page resolved it: a range left to its default (the last 30
 * days up to now) would otherwise move between pages. Kept while the store's change marker stays
 * the same, as a list is.
 */
export async function listIncidents(call: RouteContext): Promise<ApiResponse> {
  const query = parseIncidentsQuery(call.url.query, call.now);
  const key = `${query.device_id ?? ''} ${query.heartbeat_id ?? ''} ${query.from} ${query.to} ${query.limit} ${query.before_id ?? ''}`;
  return reusedAnswer(call, key, async () => {
    const rows = await call.store.listIncidents(call.key.user_id, { ...query, limit: query.limit + 1 });
    // Missing and another user's record are the same 404: nobody learns whether an id exists.
    if (rows === undefined)
      throw errors.notFound(query.heartbeat_id === undefined ? 'device_not_found' : 'heartbeat_not_found');
    const headers: Record<string, string> = {};
    if (rows.length > query.limit) {
      rows.length = query.limit;
      headers.link = `<${call.url.pathname}?${nextPage(query, rows[query.limit - 1]!.id)}>; rel="next"`;
    }
    return successResponse(200, rows, headers);
  });
}

/**
 * `POST /incidents/acknowledge?id=` (docs/notifications.md, "Reminders, escalation and
 * acknowledgement"): acknowledges one of the key's user's incidents as this key, which stops its
 * reminders and escalations and tells the PagerDuty channels that were paged. Answers the incident
 * as it then stands: acknowledging it again, or a closed one, is a 200 too, and a repeat keeps the
 * first acknowledgement (its `acknowledged_at` and `acknowledged_by` say who was first).
 */
export async function acknowledgeIncident(call: RouteContext): Promise<ApiResponse> {
  const id = parseIdAlone(call.url.query);
  const at = new Date(call.now).toISOString();
  const answer = await call.store.acknowledgeIncident(call.key.user_id, id, call.key.id, at);
  if (answer === undefined) throw errors.notFound('incident_not_found');
  return successResponse(200, answer.incident);
}
