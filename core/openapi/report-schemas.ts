/**
 * The report routes' answers in the OpenAPI document (docs/contract.md, "6.12 Reports"): written
 * by hand from the record types, each property checked against its type by `record`.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import type {
  AvailabilityReport,
  Incident,
  IncidentCause,
  ListingPeriod,
  ResponseTimePoint,
} from '../reports/report-records.ts';
import { described, nullable, record, ref, STRING } from './schema-helpers.ts';

const SECONDS: JsonSchema = { type: 'number', minimum: 0 };
const COUNT: JsonSchema = { type: 'integer', minimum: 0 };
const MS_OR_NULL: JsonSchema = nullable({ type: 'number', minimum: 0 });

function availability(): JsonSchema {
  const properties: { [K in keyof AvailabilityReport]-?: JsonSchema } = {
    from: described("The range's start, as resolved (UTC).", ref('Timestamp')),
    to: described("Its end (exclusive): the request's `to`, or now when that lies ahead.", ref('Timestamp')),
    availability: described(
      '100 × uptime / (uptime + downtime), to 4 decimals (99.3056), never 100 with any downtime; null when neither was counted.',
      nullable({ type: 'number', minimum: 0, maximum: 100 }),
    ),
    uptime_s: described('Seconds `up`, `pending` or `validating` (unconfirmed failures are not downtime).', SECONDS),
    downtime_s: described('Seconds `down`.', SECONDS),
    maintenance_s: described('Seconds in `maintenance`: counted neither as up nor as down.', SECONDS),
    paused_s: described('Seconds `paused`: counted neither as up nor as down.', SECONDS),
    unknown_s: described(
      'Seconds with no known status: before the device existed, before its timeline began (the upgrade that added reports), or beyond the report retention.',
      SECONDS,
    ),
    incidents: described('`down` periods overlapping the range.', COUNT),
    longest_incident_s: described('The longest of them, cut to the range; 0 without incidents.', SECONDS),
    mean_incident_s: described('downtime_s / incidents; 0 without incidents.', SECONDS),
    mtbf_s: described('Mean time between failures, uptime_s / incidents; absent without incidents.', SECONDS),
  };
  const schema = record<AvailabilityReport>('How one device spent a range, from its status timeline.', properties);
  return { ...schema, required: (schema.required as string[]).filter((name) => name !== 'mtbf_s') };
}

function responseTimePoint(): JsonSchema {
  const properties: { [K in keyof ResponseTimePoint]-?: JsonSchema } = {
    at: described("The bucket's start: a UTC hour, or a day's midnight (UTC, or in `time_zone`).", ref('Timestamp')),
    probe: described('The probe, as in the check results (`public_https`, `origin_tls`, ...).', STRING),
    location: described('The location the checks ran from; only for a device with `check_locations`.', STRING),
    checks: described('Checks of this probe in the bucket.', COUNT),
    failures: described('Of them, failed ones.', COUNT),
    avg_ms: described('Mean response time of the results that had one; null when none had.', MS_OR_NULL),
    p95_ms: described('95th percentile, within 5 % of the exact figure; null when no result had a time.', MS_OR_NULL),
    min_ms: described('Fastest; null when no result had a time.', MS_OR_NULL),
    max_ms: described('Slowest; null when no result had a time.', MS_OR_NULL),
  };
  const schema = record<ResponseTimePoint>("One probe's (and location's) checks in one hour or day.", properties);
  return { ...schema, required: (schema.required as string[]).filter((name) => name !== 'location') };
}

function incidentCause(): JsonSchema {
  const properties: { [K in keyof IncidentCause]-?: JsonSchema } = {
    probe: described(
      'The first failing probe of the check that made the device `down`; `heartbeat` for a heartbeat.',
      STRING,
    ),
    error: described(
      'Its error; null when it gave none. For a heartbeat, why it went down: `late`, `failed`, `exit_status`, `ran_too_long` or `ran_too_short`.',
      nullable(STRING),
    ),
    location: described('Where it ran from; only for a device with `check_locations`.', STRING),
  };
  const schema = record<IncidentCause>('Why a device or a heartbeat went down.', properties);
  return { ...schema, required: ['probe', 'error'] };
}

function incident(): JsonSchema {
  const properties: { [K in keyof Incident]-?: JsonSchema } = {
    id: ref('Id'),
    device_id: described("The device's id; null for a heartbeat's incident.", nullable(ref('Id'))),
    heartbeat_id: described("The heartbeat's id; null for a device's incident.", nullable(ref('Id'))),
    started_at: described(
      'When the record became `down` (a late heartbeat: the deadline it missed).',
      ref('Timestamp'),
    ),
    resolved_at: described('When it left `down`; null while it is down.', nullable(ref('Timestamp'))),
    duration_s: described('Whole seconds from started_at to resolved_at; null while open.', nullable(COUNT)),
    cause: described('The first failing probe; null when not known.', nullable(ref('IncidentCause'))),
    locations: described(
      "Each location's verdict when it opened (devices with `check_locations`); null otherwise.",
      nullable({ type: 'object', additionalProperties: STRING }),
    ),
    acknowledged_at: described(
      'When someone first acknowledged it (`POST /incidents/acknowledge`); null until then.',
      nullable(ref('Timestamp')),
    ),
    acknowledged_by: described('The id of the API key that acknowledged it; null until then.', nullable(ref('Id'))),
  };
  return record<Incident>('A `down` period of a device, opened and closed with the status change.', properties);
}

function listingPeriod(): JsonSchema {
  const properties: { [K in keyof ListingPeriod]-?: JsonSchema } = {
    zone: described('The DNSBL zone.', STRING),
    answer: described("The zone's answer (its return code) when the listing began.", STRING),
    listed_at: described('When the zone began to list the target.', ref('Timestamp')),
    delisted_at: described('When it stopped; null while listed.', nullable(ref('Timestamp'))),
  };
  return record<ListingPeriod>("One zone's listing of a blacklist monitor's target.", properties);
}

const envelope = (data: JsonSchema, description: string): JsonSchema => ({
  type: 'object',
  description,
  required: ['success', 'data'],
  properties: { success: { const: true }, data },
});
const list = (name: string): JsonSchema => ({ type: 'array', items: ref(name) });

export function reportSchemas(): Record<string, JsonSchema> {
  return {
    AvailabilityReport: availability(),
    ResponseTimePoint: responseTimePoint(),
    IncidentCause: incidentCause(),
    Incident: incident(),
    ListingPeriod: listingPeriod(),
    AvailabilityReportEnvelope: envelope(ref('AvailabilityReport'), "A device's availability over a range."),
    ResponseTimeListEnvelope: envelope(
      list('ResponseTimePoint'),
      "A device's response times, by bucket start, then probe, then location.",
    ),
    IncidentListEnvelope: envelope(list('Incident'), 'Incidents overlapping the range, newest first (by id).'),
    IncidentEnvelope: envelope(ref('Incident'), 'One incident.'),
    ListingPeriodListEnvelope: envelope(
      list('ListingPeriod'),
      'Listing periods overlapping the range, by listed_at, then zone.',
    ),
  };
}
