/**
 * Heartbeats in the OpenAPI document (docs/heartbeats.md): the create body, the record, its pings
 * and their envelopes. Written by hand: the validator's rules between fields (period or schedule,
 * a cron expression that fires, the run times) have no converter rule.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { HEARTBEAT_STATUSES, PING_KINDS, type Heartbeat, type HeartbeatPing } from '../records/index.ts';
import { DEFAULT_GRACE_S, MAX_DURATION_S, MIN_PERIOD_S } from '../validation/heartbeat-input.ts';
import { MAX_CHANNEL_IDS } from '../validation/notify-fields.ts';
import { NO_CONTROL_CHARACTERS } from './request-schemas.ts';
import { described, nullable, record, ref, STRING } from './schema-helpers.ts';

const FLAG_OR_NULL: JsonSchema = { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'null' }] };
const seconds = (min: number): JsonSchema => ({
  anyOf: [{ type: 'integer', minimum: min, maximum: MAX_DURATION_S }, { type: 'null' }],
});
const MS: JsonSchema = { type: 'integer', minimum: 0 };
const CHANNEL_IDS: JsonSchema = nullable({
  type: 'array',
  items: ref('Id'),
  maxItems: MAX_CHANNEL_IDS,
  uniqueItems: true,
});

function inputProperties(): Record<string, JsonSchema> {
  return {
    name: described('1 to 100 characters. Default null.', {
      anyOf: [{ type: 'string', minLength: 1, maxLength: 100, pattern: NO_CONTROL_CHARACTERS }, { type: 'null' }],
    }),
    period_s: described(
      'Seconds expected between successes. Exactly one of period_s and schedule is given.',
      seconds(MIN_PERIOD_S),
    ),
    schedule: described(
      'A five-field cron expression (minute hour day-of-month month day-of-week) read in time_zone; one that does not parse or never fires is invalid_value.',
      { anyOf: [{ type: 'string', maxLength: 100 }, { type: 'null' }] },
    ),
    time_zone: described('An IANA time zone the schedule is read in. Default UTC.', {
      anyOf: [{ type: 'string' }, { type: 'null' }],
    }),
    grace_s: described(
      `How late a success may be before the heartbeat is down. Default ${DEFAULT_GRACE_S}.`,
      seconds(MIN_PERIOD_S),
    ),
    max_runtime_s: described(
      'A run started with /start and not ended by then is down (ran_too_long). Default null: grace_s.',
      seconds(1),
    ),
    min_runtime_s: described(
      'A run that ends sooner is a failure (ran_too_short); less than max_runtime_s. Default null.',
      seconds(1),
    ),
    is_enabled: described('false pauses it. Default true.', FLAG_OR_NULL),
    channel_ids: described(
      "The channels told of its heartbeat.down and heartbeat.up: null (the default), every channel of yours with is_default; [] none; else these ids of your channels (another's or an unknown id is invalid_value).",
      CHANNEL_IDS,
    ),
  };
}

function heartbeat(): JsonSchema {
  const stamp = (text: string) => described(text, nullable(ref('Timestamp')));
  const properties: { [K in keyof Heartbeat]-?: JsonSchema } = {
    id: ref('Id'),
    name: nullable(STRING),
    period_s: nullable({ type: 'integer' }),
    schedule: nullable(STRING),
    time_zone: STRING,
    grace_s: { type: 'integer' },
    max_runtime_s: nullable({ type: 'integer' }),
    min_runtime_s: nullable({ type: 'integer' }),
    is_enabled: { type: 'boolean' },
    channel_ids: described(
      "The channels told of its events: null, every channel of its user with is_default; [] none; else these ids of the user's channels, ascending.",
      CHANNEL_IDS,
    ),
    ping_url: described(
      'Where the job pings: `<public URL>/ping/<token>` (the token a random UUID). Shown to keys with the write scope only.',
      { type: 'string' },
    ),
    status: { type: 'string', enum: [...HEARTBEAT_STATUSES] },
    status_since: described(
      'When the status last changed; for a late heartbeat, the deadline it missed.',
      ref('Timestamp'),
    ),
    last_ping_at: stamp('The last ping that was not a log ping; null before the first.'),
    last_duration_ms: described('How long the last measured run took; null before one.', nullable(MS)),
    next_due_at: stamp(
      'When it must have been told, grace included; null while nothing is awaited (new, down, paused).',
    ),
    created_at: ref('Timestamp'),
  };
  const schema = record<Heartbeat>('A heartbeat: a monitor that waits to be told.', properties);
  return { ...schema, required: (schema.required as string[]).filter((name) => name !== 'ping_url') };
}

function ping(): JsonSchema {
  const properties: { [K in keyof HeartbeatPing]-?: JsonSchema } = {
    id: ref('Id'),
    kind: { type: 'string', enum: [...PING_KINDS] },
    exit_status: described('The exit status of an `exit` ping; null otherwise.', nullable({ type: 'integer' })),
    received_at: ref('Timestamp'),
    duration_ms: described('For the end of a run with a matching start: how long it took.', nullable(MS)),
    remote_addr: described("The client's address, after trustProxy.", nullable(STRING)),
    user_agent: nullable(STRING),
    body: described('The first 10,000 bytes of the body, as text; null when none.', nullable(STRING)),
    rid: described('The run id (`?rid=`); null when not given.', nullable(STRING)),
  };
  return record<HeartbeatPing>('One ping of a heartbeat.', properties);
}

export function heartbeatSchemas(): Record<string, JsonSchema> {
  const envelope = (data: JsonSchema, description: string): JsonSchema => ({
    type: 'object',
    description,
    required: ['success', 'data'],
    properties: { success: { const: true }, data },
  });
  return {
    HeartbeatInput: {
      type: 'object',
      description: 'A heartbeat: period_s or schedule (exactly one), and its timing.',
      additionalProperties: false,
      properties: inputProperties(),
    },
    HeartbeatUpdate: {
      type: 'object',
      description:
        "Changes to a heartbeat: any subset of the create's fields, the heartbeat that results judged as a whole (to change period_s for schedule, give the other null). `rotate_token: true` gives it a new ping token at once: the old ping URL is 404 from then on.",
      additionalProperties: false,
      properties: {
        ...inputProperties(),
        rotate_token: described('true: a new ping token.', FLAG_OR_NULL),
      },
    },
    Heartbeat: heartbeat(),
    HeartbeatPing: ping(),
    HeartbeatEnvelope: envelope(ref('Heartbeat'), 'One heartbeat.'),
    HeartbeatListEnvelope: envelope({ type: 'array', items: ref('Heartbeat') }, 'Heartbeats, ascending by id.'),
    HeartbeatPingListEnvelope: envelope({ type: 'array', items: ref('HeartbeatPing') }, 'Pings, newest first.'),
  };
}
