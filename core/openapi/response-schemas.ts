/**
 * JSON Schemas of what the API answers (docs/contract.md §3 and §6.1-§6.2). The records have no valibot schema
 * (the server builds them, it does not parse them), so they are written here, typed against
 * core/records/ so that a field added to or removed from a record fails to compile until it is
 * described. The response-conformance test checks every answer against them besides.
 *
 * Objects are left open (no `additionalProperties: false`) on purpose: adding a field to an answer
 * is how the API evolves without a new version (/me says "more fields may follow"), and a client
 * generated from this document must not reject it. The conformance test closes them, so the
 * server cannot send a field the document does not name.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { errorResponse } from '../http/api-response.ts';
import type { ApiError, DetailCode } from '../http/api-error.ts';
import {
  DEVICE_STATUSES,
  SCOPES,
  SERVICE_TYPES,
  type BlacklistMonitor,
  type BlacklistStatus,
  type Device,
  type DeviceStatus,
  type DnsblListing,
  type Scheme,
  type TargetType,
} from '../records/index.ts';
import { resultSchemas } from './result-schemas.ts';
import { BOOLEAN, described, exhaustive, nullable, record, ref, STRING } from './schema-helpers.ts';

export const DETAIL_CODES = exhaustive<DetailCode>()([
  'missing',
  'invalid_type',
  'invalid_value',
  'out_of_range',
  'too_long',
  'unknown_field',
  'forbidden_target',
  'not_applicable',
  'read_only_field',
]);
const TARGET_TYPES = exhaustive<TargetType>()(['domain', 'ip']);
const SCHEMES = exhaustive<Scheme>()(['http', 'https']);
const BLACKLIST_STATUSES = exhaustive<BlacklistStatus>()(['clean', 'listed', 'error']);
const STATUSES = exhaustive<DeviceStatus>()(DEVICE_STATUSES);

const PORT: JsonSchema = { type: 'integer', minimum: 1, maximum: 65535 };

function recordSchemas(): Record<string, JsonSchema> {
  const targetType: JsonSchema = { type: 'string', enum: [...TARGET_TYPES] };
  const scheme: JsonSchema = { type: 'string', enum: [...SCHEMES] };
  return {
    Id: {
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'A record identifier: a positive integer.',
    },
    Timestamp: {
      type: 'string',
      format: 'date-time',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
      description: 'ISO 8601 UTC with milliseconds, e.g. 2026-11-22T07:00:00.000Z.',
      examples: ['2026-11-22T07:00:00.000Z'],
    },
    Device: record<Device>('A monitored endpoint. Flags are JSON booleans; absent values are null.', {
      id: ref('Id'),
      target_type: targetType,
      target_value: described('The domain (lower-case, ASCII/punycode) or IP address (canonical form).', STRING),
      service_type: { type: 'string', enum: [...SERVICE_TYPES] },
      scheme: described('http or https for web; null for other services.', nullable(scheme)),
      port: PORT,
      host_header: nullable(STRING),
      proxy_enabled: BOOLEAN,
      origin_host: nullable(STRING),
      origin_scheme: nullable(scheme),
      origin_port: nullable(PORT),
      check_public_http: BOOLEAN,
      check_public_https: BOOLEAN,
      check_public_tls: BOOLEAN,
      check_origin_http: BOOLEAN,
      check_origin_tls: BOOLEAN,
      expect_status: described(
        'Expected HTTP status for web; null for other services.',
        nullable({ type: 'integer', minimum: 100, maximum: 599 }),
      ),
      location: nullable(STRING),
      is_enabled: BOOLEAN,
      created_at: ref('Timestamp'),
      check_interval_s: described('Seconds between checks.', { type: 'integer', minimum: 30, maximum: 86400 }),
      check_locations: described(
        'The locations the device is checked from; null: any one location.',
        nullable({ type: 'array', items: { type: 'string', pattern: '^[a-z0-9-]{1,32}$' }, minItems: 1, maxItems: 16 }),
      ),
      quorum: described(
        'How many of check_locations must agree to declare the device down or up; null when check_locations is null.',
        nullable({ type: 'integer', minimum: 1, maximum: 16 }),
      ),
      quorum_state: described(
        'insufficient while fewer of its locations than the quorum can be heard (the status then holds), met otherwise; null when check_locations is null or before the first result.',
        nullable({ type: 'string', enum: ['met', 'insufficient'] }),
      ),
      locations: described(
        'What each of check_locations last found, by name; null when check_locations is null.',
        nullable({
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['status', 'last_checked_at', 'response_ms', 'error'],
            properties: {
              status: described(
                'up or failing from a recent result; stale with no live worker or no recent result; unknown before the first result.',
                { type: 'string', enum: ['up', 'failing', 'stale', 'unknown'] },
              ),
              last_checked_at: nullable(ref('Timestamp')),
              response_ms: nullable({ type: 'integer', minimum: 0 }),
              error: nullable(STRING),
            },
          },
        }),
      ),
      status: described(
        'pending: never checked; up: the last check passed; validating: a check failed and is being confirmed; down: enough checks in a row failed; paused: disabled, not checked.',
        { type: 'string', enum: [...STATUSES] },
      ),
      status_since: described(
        'When the status last changed; a failure not confirmed (validating back to up) keeps the time the device had been up. Null until the first change.',
        nullable(ref('Timestamp')),
      ),
      last_checked_at: described(
        'The end of the last completed check; null before the first.',
        nullable(ref('Timestamp')),
      ),
      last_results: ref('DeviceLastResults'),
      name: described(
        'A name people know it by, used in notifications; null for none (its target names it).',
        nullable({ ...STRING, minLength: 1, maxLength: 100 }),
      ),
      channel_ids: described(
        "The channels told of its events: null, every channel of its user with is_default; [] none; else these ids of the user's channels, ascending.",
        nullable({ type: 'array', items: ref('Id'), maxItems: 100, uniqueItems: true }),
      ),
    }),
    BlacklistMonitor: record<BlacklistMonitor>('A domain or IP address watched for blacklisting.', {
      id: ref('Id'),
      target_type: targetType,
      target_value: described('The domain (lower-case, ASCII/punycode) or IP address (canonical form).', STRING),
      is_enabled: BOOLEAN,
      last_status: described(
        'null before the first check.',
        nullable({ type: 'string', enum: [...BLACKLIST_STATUSES] }),
      ),
      last_checked_at: described('null before the first check.', nullable(ref('Timestamp'))),
      listed_on: described('The blacklist zones that listed the target at the last check; [] otherwise.', {
        type: 'array',
        items: STRING,
      }),
      created_at: ref('Timestamp'),
      check_interval_s: described('Seconds between checks.', { type: 'integer', minimum: 300, maximum: 86400 }),
      failed_zones: described('The zones whose lookup failed at the last check, sorted; [] otherwise.', {
        type: 'array',
        items: STRING,
      }),
      zones: described(
        "The zones asked for the target, sorted: some of the installation's zones for its type; null asks every one of them.",
        nullable({ type: 'array', items: STRING, minItems: 1 }),
      ),
      count_policy_listings: described(
        'Whether a policy listing (Spamhaus PBL) makes the monitor listed; when false such a listing is shown in listings and the status stays clean.',
        BOOLEAN,
      ),
      listings: described('Every zone that lists the target, sorted by zone; [] when none does.', {
        type: 'array',
        items: ref('DnsblListing'),
      }),
      rdns: described(
        'The reverse DNS (PTR) name of an IP target; null when it has none, and for a domain.',
        nullable(STRING),
      ),
      name: described(
        'A name people know it by, used in notifications; null for none (its target names it).',
        nullable({ ...STRING, minLength: 1, maxLength: 100 }),
      ),
      channel_ids: described(
        "The channels told of its events: null, every channel of its user with is_default; [] none; else these ids of the user's channels, ascending.",
        nullable({ type: 'array', items: ref('Id'), maxItems: 100, uniqueItems: true }),
      ),
    }),
    DnsblListing: record<DnsblListing>("One zone's listing of a target, read against what the list documents.", {
      zone: STRING,
      answer: described('The A records the zone answered, comma-joined (e.g. 127.0.0.2).', STRING),
      meaning: described(
        "What the answer means, from the list's documentation; null when the code is not known.",
        nullable(STRING),
      ),
      policy: described(
        'True when every code of the answer is a policy listing (an address range that should not send mail directly), not a sign of spam.',
        BOOLEAN,
      ),
      delist_url: described(
        'Where to look the listing up and ask for its removal; null when not known.',
        nullable(STRING),
      ),
      since: described('The first check that saw this zone list the target.', ref('Timestamp')),
    }),
    Me: {
      type: 'object',
      description: 'The calling API key and its user. More fields may follow in later releases.',
      required: ['user_id', 'key_id', 'scopes', 'expires_at'],
      properties: {
        user_id: ref('Id'),
        key_id: ref('Id'),
        scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, uniqueItems: true },
        expires_at: described('When the key stops working; null if it does not expire.', nullable(ref('Timestamp'))),
      },
    },
    Location: {
      type: 'object',
      description: 'A location the monitoring engine checks from: a label its workers carry.',
      required: ['name', 'live_workers', 'last_seen_at'],
      properties: {
        name: described('`[a-z0-9-]{1,32}`.', { type: 'string', pattern: '^[a-z0-9-]{1,32}$' }),
        live_workers: described('Workers whose last heartbeat is younger than 30 s.', {
          type: 'integer',
          minimum: 0,
        }),
        last_seen_at: described("The last heartbeat of any of the location's workers.", ref('Timestamp')),
      },
    },
    Deleted: {
      type: 'object',
      description: 'The answer of a successful delete.',
      required: ['id', 'deleted'],
      properties: { id: ref('Id'), deleted: { const: true } },
    },
    ErrorDetail: {
      type: 'object',
      description: 'One problem with one field of a request (validation_failed only).',
      required: ['field', 'code', 'message'],
      properties: {
        field: described('The body field or query parameter concerned.', STRING),
        code: { type: 'string', enum: [...DETAIL_CODES] },
        message: described('A human sentence; may change, do not parse it.', STRING),
      },
    },
  };
}

function envelope(success: boolean, payload: JsonSchema, description: string): JsonSchema {
  const key = success ? 'data' : 'error';
  return {
    type: 'object',
    description,
    required: ['success', key],
    properties: { success: { const: success }, [key]: payload },
  };
}

/** The success envelopes, one per kind of `data`. */
function successEnvelopes(): Record<string, JsonSchema> {
  const list = (item: string) => ({ type: 'array', items: ref(item) }) satisfies JsonSchema;
  return {
    MeEnvelope: envelope(true, ref('Me'), 'The calling key and its user.'),
    LocationListEnvelope: envelope(true, list('Location'), 'The locations, by name.'),
    DeviceEnvelope: envelope(true, ref('Device'), 'One device.'),
    DeviceListEnvelope: envelope(true, list('Device'), 'Devices, ascending by id.'),
    BlacklistMonitorEnvelope: envelope(true, ref('BlacklistMonitor'), 'One blacklist monitor.'),
    BlacklistMonitorListEnvelope: envelope(true, list('BlacklistMonitor'), 'Blacklist monitors, ascending by id.'),
    DeletedEnvelope: envelope(true, ref('Deleted'), 'The record was deleted.'),
    DeviceResultListEnvelope: envelope(true, list('DeviceProbeResult'), "A device's check results, newest first."),
    BlacklistMonitorResultListEnvelope: envelope(
      true,
      list('DnsblResult'),
      "A blacklist monitor's check results (one per zone asked), newest first.",
    ),
  };
}

export function componentSchemas(requestSchemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return { ...requestSchemas, ...recordSchemas(), ...resultSchemas(), ...successEnvelopes() };
}

/**
 * The error envelope of one response: `code` narrowed to what that response can carry, with
 * `details` required on validation_failed and `existing_id` on a duplicate. (That the other codes
 * carry neither is left to the objects being closed in the conformance test: a `not` clause would
 * only confuse client generators.)
 */
export function errorEnvelopeFor(codes: readonly string[]): JsonSchema {
  const message = { type: 'string' } satisfies JsonSchema;
  const variants: JsonSchema[] = [];
  // A status page's slug or hostname may be another user's page: its 409 names no existing_id.
  const withId = (code: string) =>
    code.startsWith('duplicate_') && code !== 'duplicate_slug' && code !== 'duplicate_hostname';
  const plain = codes.filter((code) => code !== 'validation_failed' && !withId(code));
  if (plain.length > 0) {
    variants.push({
      type: 'object',
      required: ['code', 'message'],
      properties: { code: plain.length === 1 ? { const: plain[0]! } : { type: 'string', enum: plain }, message },
    });
  }
  if (codes.includes('validation_failed')) {
    variants.push({
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { const: 'validation_failed' },
        message,
        details: { type: 'array', minItems: 1, items: ref('ErrorDetail') },
      },
    });
  }
  for (const code of codes.filter(withId)) {
    variants.push({
      type: 'object',
      required: ['code', 'message', 'existing_id'],
      properties: { code: { const: code }, message, existing_id: ref('Id') },
    });
  }
  const error = variants.length === 1 ? variants[0]! : { oneOf: variants };
  return envelope(false, error, `Codes: ${codes.join(', ')}.`);
}

/** The body an `ApiError` is answered with: the server's own serialisation, so examples are real. */
export function exampleBody(error: ApiError): unknown {
  const body = errorResponse(error).body;
  if (typeof body !== 'string') throw new Error('an error answer is never streamed');
  return JSON.parse(body);
}
