import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';
import { isTimeZone } from '../time-zones.ts';
import type { IncidentQuery, ReportBucket, ReportRange, ResponseTimeQuery } from '../reports/report-records.ts';
import { issuesToDetails, type FieldHints } from './details.ts';
import { decimal, MAX_ID, parseRecordId, queryValues } from './list-query.ts';
import { parseReportRange, reportRangeHints } from './report-range.ts';
import { DEFAULT_RESULTS_LIMIT, resultsQueryHints } from './results-query.ts';

// The queries of the report routes (docs/contract.md, "6.12 Reports"). Each is judged as the
// results routes judge theirs: a record's `id` first (400 `invalid_id`), then every other
// parameter at once, unknown and repeated ones included (400 `validation_failed` with details).

/** Ranges up to this long are answered in hours when the request names no bucket; longer ones in days. */
export const HOURLY_UP_TO_MS = 2 * 86_400_000;

const hints: FieldHints = {
  ...reportRangeHints,
  ...resultsQueryHints,
  id: 'an integer from 1 to 2^53-1',
  device_id: `an integer from 1 to ${MAX_ID}, given once`,
  heartbeat_id: `an integer from 1 to ${MAX_ID}, given once, without device_id`,
  bucket: 'hour or day',
  time_zone: 'an IANA time zone such as Europe/Berlin, with bucket=day',
};

const responseTimesSchema = v.object(
  {
    bucket: v.optional(v.picklist(['hour', 'day'], 'invalid_value')),
    time_zone: v.optional(v.pipe(v.string(), v.check(isTimeZone, 'invalid_value'))),
  },
  'invalid_type',
);

const incidentsSchema = v.object(
  {
    device_id: v.optional(decimal(1, MAX_ID)),
    heartbeat_id: v.optional(decimal(1, MAX_ID)),
    limit: v.optional(decimal(1, 1000)),
    before_id: v.optional(decimal(1, MAX_ID)),
  },
  'invalid_type',
);

/** The query's single values and the problems found so far: unknown and repeated parameters. */
function split(query: string, known: ReadonlySet<string>) {
  const { values, details } = queryValues(query, known, hints);
  for (const name of new Set(details.map((d) => d.field))) delete values[name];
  return { values, details };
}

/** Runs `schema` over `values`' own fields and adds its problems to `details`. */
function judge<S extends v.GenericSchema>(
  schema: S,
  values: Record<string, string>,
  details: ErrorDetail[],
): v.InferOutput<S> | undefined {
  const result = v.safeParse(schema, values, { abortEarly: false });
  if (result.success) return result.output;
  const known = new Set(details.map((d) => d.field));
  details.push(...issuesToDetails(result.issues, hints).filter((d) => !known.has(d.field)));
  return undefined;
}

function fail(details: ErrorDetail[]): never {
  throw errors.validationFailed(details);
}

function done<T>(details: ErrorDetail[], value: T | undefined): T {
  if (details.length > 0 || value === undefined) return fail(details);
  return value;
}

const RANGE_PARAMS = new Set(['id', 'from', 'to']);

/** `GET /devices/availability` and `GET /blacklist-monitors/listings`: a record's `id` and a range. */
export function parseRecordRangeQuery(query: string, now: number): { id: number; range: ReportRange } {
  const id = parseRecordId(query);
  const { values, details } = split(query, RANGE_PARAMS);
  const range = parseReportRange(values, now, details);
  return { id, range: done(details, range) };
}

const RESPONSE_TIME_PARAMS = new Set(['id', 'from', 'to', 'bucket', 'time_zone']);

/**
 * `GET /devices/response-times`. Without `bucket`, a range of at most two days comes in hours and
 * a longer one in days, or in days whenever `time_zone` is given. `time_zone` names whose days
 * the day buckets are (UTC without it); hours are UTC hours, so with `bucket=hour` it is
 * `not_applicable`.
 */
export function parseResponseTimesQuery(query: string, now: number): { id: number; query: ResponseTimeQuery } {
  const id = parseRecordId(query);
  const { values, details } = split(query, RESPONSE_TIME_PARAMS);
  const range = parseReportRange(values, now, details);
  const { from, to, ...rest } = values;
  const fields = judge(responseTimesSchema, rest, details);
  if (fields?.time_zone !== undefined && fields.bucket === 'hour') {
    details.push({
      field: 'time_zone',
      code: 'not_applicable',
      message: 'time_zone applies to bucket=day only: hours are UTC hours.',
    });
  }
  if (range === undefined || fields === undefined) return fail(details);
  const span = Date.parse(range.to) - Date.parse(range.from);
  const implied: ReportBucket = fields.time_zone !== undefined || span > HOURLY_UP_TO_MS ? 'day' : 'hour';
  const asked: ResponseTimeQuery = { ...range, bucket: fields.bucket ?? implied };
  if (fields.time_zone !== undefined) asked.time_zone = fields.time_zone;
  return { id, query: done(details, asked) };
}

const INCIDENT_PARAMS = new Set(['device_id', 'heartbeat_id', 'from', 'to', 'limit', 'before_id']);

/**
 * `GET /incidents`: the range, `device_id` or `heartbeat_id` (only that record's incidents: an
 * incident is one record's, so both together is `not_applicable`), and `limit` (default
 * 100) and `before_id` as the results routes read them. `limit` is the page size the caller asked
 * for; the route reads one more to know whether a next page exists.
 */
export function parseIncidentsQuery(query: string, now: number): IncidentQuery {
  const { values, details } = split(query, INCIDENT_PARAMS);
  const range = parseReportRange(values, now, details);
  const { from, to, ...rest } = values;
  const fields = judge(incidentsSchema, rest, details);
  if (fields?.device_id !== undefined && fields.heartbeat_id !== undefined) {
    details.push({
      field: 'heartbeat_id',
      code: 'not_applicable',
      message: "heartbeat_id and device_id cannot be given together: an incident is one record's.",
    });
  }
  if (range === undefined || fields === undefined) return fail(details);
  const asked: IncidentQuery = { ...range, limit: fields.limit ?? DEFAULT_RESULTS_LIMIT };
  if (fields.device_id !== undefined) asked.device_id = fields.device_id;
  if (fields.heartbeat_id !== undefined) asked.heartbeat_id = fields.heartbeat_id;
  if (fields.before_id !== undefined) asked.before_id = fields.before_id;
  return done(details, asked);
}
