/**
 * PagerDuty's Events API v2 (developer.pagerduty.com, "Send an Alert Event"): POST JSON with a
 * 32-character `routing_key`, `event_action` trigger, acknowledge or resolve, a `dedup_key` of at
 * most 255 characters (required to acknowledge or resolve), and for a trigger a `payload` with
 * `summary` (at most 1024), `source` and `severity` (critical, error, warning or info). A wrong
 * event is 400 `{"status": "invalid event", ...}`; an event taken is 202.
 */
import { json, jsonObject, startFakeService, type FakeService } from './fake-service.ts';

const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);

function eventProblem(event: Record<string, unknown>): string | null {
  if (typeof event.routing_key !== 'string' || event.routing_key.length !== 32) return "'routing_key' is invalid";
  if (!['trigger', 'acknowledge', 'resolve'].includes(String(event.event_action))) return "'event_action' is invalid";
  const dedup = event.dedup_key;
  if (dedup !== undefined && (typeof dedup !== 'string' || dedup.length === 0 || dedup.length > 255))
    return "'dedup_key' is invalid";
  if (event.event_action !== 'trigger') return dedup === undefined ? "'dedup_key' is missing" : null;
  const payload = event.payload as Record<string, unknown> | undefined;
  if (typeof payload !== 'object' || payload === null) return "'payload' is missing";
  if (typeof payload.summary !== 'string' || payload.summary === '' || payload.summary.length > 1024)
    return "'payload.summary' is invalid";
  if (typeof payload.source !== 'string' || payload.source === '') return "'payload.source' is missing";
  if (!SEVERITIES.has(String(payload.severity))) return "'payload.severity' is invalid";
  return null;
}

export async function startFakePagerDuty(): Promise<FakeService> {
  return startFakeService(
    (request) => {
      if (request.method !== 'POST' || !String(request.headers['content-type']).startsWith('application/json')) {
        return json(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['content-type'] });
      }
      const event = jsonObject(request.body);
      const problem = event === null ? 'not JSON' : eventProblem(event);
      return problem === null
        ? null
        : json(400, { status: 'invalid event', message: 'Event object is invalid', errors: [problem] });
    },
    (request) =>
      json(202, {
        status: 'success',
        message: 'Event processed',
        dedup_key: (jsonObject(request.body) ?? {}).dedup_key,
      }),
  );
}
