/** The report routes in the OpenAPI document (docs/contract.md, "6.12 Reports"): parameters and operations. */
import { errors } from '../http/errors.ts';
import { DEFAULT_RESULTS_LIMIT } from '../validation/results-query.ts';
import { headers, RATE_LIMIT_HEADERS } from './headers.ts';
import type { Draft } from './operations.ts';
import { resultsQueryParameterSchemas } from './request-schemas.ts';
import {
  badRequest,
  errorResponseObject,
  everyOperation,
  responseRef,
  success,
  unknownRouteErrors,
} from './response-objects.ts';
import type { ParameterObject, ResponseObject } from './types.ts';

const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });

export function reportParameters(): Record<string, ParameterObject> {
  const results = resultsQueryParameterSchemas();
  const stamp = { type: 'string', format: 'date-time' } as const;
  return {
    From: {
      name: 'from',
      in: 'query',
      required: false,
      description:
        "The range's start, RFC 3339 with Z or an offset. Default: 30 days before `to`. At or after `to`, or more than 400 days before it: out_of_range.",
      schema: stamp,
    },
    To: {
      name: 'to',
      in: 'query',
      required: false,
      description:
        "The range's end (exclusive), RFC 3339. Default: now. Up to a minute ahead is read as now; further ahead: out_of_range.",
      schema: stamp,
    },
    Bucket: {
      name: 'bucket',
      in: 'query',
      required: false,
      description:
        '`hour` (UTC hours) or `day`. Default: hours for a range of at most two days, else days; days whenever `time_zone` is given.',
      schema: { type: 'string', enum: ['hour', 'day'] },
    },
    TimeZone: {
      name: 'time_zone',
      in: 'query',
      required: false,
      description:
        'An IANA time zone (Europe/Berlin) whose days the day buckets are; UTC days without it. Unknown: invalid_value; with bucket=hour: not_applicable.',
      schema: { type: 'string' },
    },
    DeviceId: {
      name: 'device_id',
      in: 'query',
      required: false,
      description: "Only this device's incidents. Another user's device, or none: 404 device_not_found.",
      schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
    HeartbeatId: {
      name: 'heartbeat_id',
      in: 'query',
      required: false,
      description:
        "Only this heartbeat's incidents (not with device_id: not_applicable). Another user's heartbeat, or none: 404 heartbeat_not_found.",
      schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
    IncidentLimit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: `Page size. Default ${DEFAULT_RESULTS_LIMIT}.`,
      schema: results.limit,
    },
    IncidentBeforeId: {
      name: 'before_id',
      in: 'query',
      required: false,
      description: 'Cursor: only incidents with a smaller id (older ones). Default: from the newest.',
      schema: results.before_id,
    },
  };
}

const RANGE_ERRORS =
  'from or to is not an RFC 3339 timestamp (invalid_value), to is more than a minute ahead (out_of_range on to), from is at or after to or more than 400 days before it (out_of_range on from), or a parameter is unknown or repeated (validation_failed).';

function rangeRefused(withId: boolean, more = ''): ResponseObject {
  return badRequest(
    `${withId ? 'id is missing, repeated or not a positive integer (invalid_id); or ' : ''}${RANGE_ERRORS}${more}`,
    [
      ...(withId ? [errors.invalidId()] : []),
      errors.validationFailed([
        {
          field: 'from',
          code: 'out_of_range',
          message: 'from must be an RFC 3339 timestamp before to, at most 400 days before it.',
        },
      ]),
    ],
  );
}

function notFound(
  code: 'device_not_found' | 'blacklist_monitor_not_found' | 'heartbeat_not_found' | 'incident_not_found',
  noun: string,
  more: ('device_not_found' | 'heartbeat_not_found')[] = [],
): ResponseObject {
  return errorResponseObject(
    `No such ${noun} for this user; or (unknown_*_route) the server URL does not end in the API's base path.`,
    [errors.notFound(code), ...more.map((other) => errors.notFound(other)), ...unknownRouteErrors()],
    headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
  );
}

function common(notFoundResponse: ResponseObject) {
  return {
    401: responseRef('Unauthorized'),
    403: responseRef('Forbidden'),
    404: notFoundResponse,
    429: responseRef('RateLimited'),
    500: responseRef('ServerError'),
    ...everyOperation(),
  };
}

/** The drafts of the report routes and the acknowledgement of an incident, keyed `METHOD /path`. */
export function reportDrafts(): [string, Draft][] {
  const device = notFound('device_not_found', 'device');
  return [
    [
      'GET /devices/availability',
      {
        operationId: 'getDeviceAvailability',
        summary: 'How available one device was over a range',
        description:
          "Computed from the device's status timeline, so exact, not sampled. Availability = 100 × uptime / (uptime + downtime): `pending` and `validating` count as up (unconfirmed failures are not downtime); maintenance, paused and unknown time count as neither. With incident count, longest and mean incident and MTBF. Time before the device existed, before its timeline began or beyond the report retention is `unknown_s`.",
        tags: ['reports'],
        parameters: [param('Id'), param('From'), param('To')],
        responses: {
          200: success("The device's availability over the range.", 'AvailabilityReportEnvelope'),
          400: rangeRefused(true),
          ...common(device),
        },
      },
    ],
    [
      'GET /devices/response-times',
      {
        operationId: 'listDeviceResponseTimes',
        summary: "One device's response times per hour or day",
        description:
          'One point per bucket, probe and location (location only for a device with `check_locations`): checks, failures, mean, p95 (within 5 %), fastest and slowest response time. The bucket still running is included with what is recorded so far.',
        tags: ['reports'],
        parameters: [param('Id'), param('From'), param('To'), param('Bucket'), param('TimeZone')],
        responses: {
          200: success('The series, by bucket start, then probe, then location.', 'ResponseTimeListEnvelope'),
          400: rangeRefused(true, ' Or bucket is not hour or day, or time_zone is unknown or given with bucket=hour.'),
          ...common(device),
        },
      },
    ],
    [
      'GET /incidents',
      {
        operationId: 'listIncidents',
        summary: "The incidents of the key's user, newest first",
        description: `Every \`down\` period of the user's devices and heartbeats (or of \`device_id\`, or \`heartbeat_id\`) that overlaps the range, newest first (by id), one page at a time (\`limit\`, default ${DEFAULT_RESULTS_LIMIT}). When older incidents follow, a \`Link: <...>; rel="next"\` header gives the next page: the same range as this page resolved it, the same \`limit\`, \`before_id\` = the last id of this page. An open incident has \`resolved_at\` null.`,
        tags: ['reports'],
        parameters: [
          param('DeviceId'),
          param('HeartbeatId'),
          param('From'),
          param('To'),
          param('IncidentLimit'),
          param('IncidentBeforeId'),
        ],
        responses: {
          200: success('The incidents, newest first.', 'IncidentListEnvelope', headers([], ['Link'])),
          400: rangeRefused(
            false,
            ' Or device_id, heartbeat_id, limit or before_id is not an integer in its range, or device_id and heartbeat_id are both given.',
          ),
          ...common(notFound('device_not_found', 'device or heartbeat', ['heartbeat_not_found'])),
        },
      },
    ],
    [
      'POST /incidents/acknowledge',
      {
        operationId: 'acknowledgeIncident',
        summary: 'Acknowledge an incident',
        description:
          "Marks one incident of the key's user as acknowledged by this key (`acknowledged_at`, `acknowledged_by`): its reminders and pending escalations stop, and the PagerDuty channels that were paged for it are sent an `acknowledge`. Takes no body. Acknowledging again answers the incident with the first acknowledgement kept; a closed incident may be acknowledged (nothing is sent). An incident that does not exist and one of another user get the same 404.",
        tags: ['reports'],
        parameters: [param('Id')],
        responses: {
          200: success('The incident as it now stands.', 'IncidentEnvelope'),
          400: badRequest(
            'id is missing, repeated or not a positive integer (invalid_id), or another query parameter was given (validation_failed).',
            [
              errors.invalidId(),
              errors.validationFailed([
                { field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' },
              ]),
            ],
          ),
          ...common(notFound('incident_not_found', 'incident')),
        },
      },
    ],
    [
      'GET /heartbeats/availability',
      {
        operationId: 'getHeartbeatAvailability',
        summary: 'How available one heartbeat was over a range',
        description:
          "As a device's, from the heartbeat's status timeline: `up` and `started` count as up, `down` as down (from the deadline it missed), time in a maintenance window as maintenance, `paused` as paused, and `new` (never told anything yet) as unknown.",
        tags: ['reports'],
        parameters: [param('Id'), param('From'), param('To')],
        responses: {
          200: success("The heartbeat's availability over the range.", 'AvailabilityReportEnvelope'),
          400: rangeRefused(true),
          ...common(notFound('heartbeat_not_found', 'heartbeat')),
        },
      },
    ],
    [
      'GET /blacklist-monitors/listings',
      {
        operationId: 'listBlacklistMonitorListings',
        summary: "One blacklist monitor's listing periods",
        description:
          "Each zone's listings of the monitor's target that overlap the range, with the zone's answer: the blacklist equivalent of incidents. A listing still in force has `delisted_at` null.",
        tags: ['reports'],
        parameters: [param('Id'), param('From'), param('To')],
        responses: {
          200: success('The listing periods, by listed_at, then zone.', 'ListingPeriodListEnvelope'),
          400: rangeRefused(true),
          ...common(notFound('blacklist_monitor_not_found', 'blacklist monitor')),
        },
      },
    ],
  ];
}
