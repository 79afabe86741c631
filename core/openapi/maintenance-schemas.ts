/**
 * Maintenance windows in the OpenAPI document: the create body, the record and its envelopes.
 * Written by hand: the validator's time-zone, timestamp and span rules have no converter rule.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import { WEEKDAYS, type MaintenanceWindow } from '../records/index.ts';
import { MAX_WINDOW_IDS, MAX_WINDOW_S } from '../validation/maintenance-window-input.ts';
import { NO_CONTROL_CHARACTERS } from './request-schemas.ts';
import { nullable, ref } from './schema-helpers.ts';

const FLAG_OR_NULL: JsonSchema = { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'null' }] };
const IDS: JsonSchema = {
  type: 'array',
  maxItems: MAX_WINDOW_IDS,
  items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
};

function repeatSchema(): JsonSchema {
  return {
    type: 'object',
    description:
      'A weekly window: on each of `days`, from `start` in `time_zone` (following its daylight-saving changes), for `duration_s`.',
    required: ['days', 'start', 'duration_s', 'time_zone'],
    additionalProperties: false,
    properties: {
      days: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...WEEKDAYS] } },
      start: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local time HH:MM, 24-hour.' },
      duration_s: { type: 'integer', minimum: 1, maximum: MAX_WINDOW_S },
      time_zone: { type: 'string', description: 'An IANA time zone, e.g. Europe/Berlin (invalid_value when unknown).' },
    },
  };
}

function inputProperties(): Record<string, JsonSchema> {
  const stamp: JsonSchema = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] };
  return {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: NO_CONTROL_CHARACTERS },
    starts_at: { description: 'RFC 3339. A one-off window: required with ends_at, and not with repeat.', ...stamp },
    ends_at: { description: 'RFC 3339, after starts_at, at most 31 days later.', ...stamp },
    repeat: { anyOf: [ref('MaintenanceRepeat'), { type: 'null' }] },
    device_ids: {
      description: "Ids of the user's devices (invalid_value naming any other). Default [].",
      anyOf: [IDS, { type: 'null' }],
    },
    all_devices: { description: 'Every device of the user, present and future. Default false.', ...FLAG_OR_NULL },
    blacklist_monitor_ids: {
      description: "Ids of the user's blacklist monitors. Default [].",
      anyOf: [IDS, { type: 'null' }],
    },
    all_blacklist_monitors: { description: 'Default false.', ...FLAG_OR_NULL },
    heartbeat_ids: {
      description: "Ids of the user's heartbeats: never down while the window is in force. Default [].",
      anyOf: [IDS, { type: 'null' }],
    },
    all_heartbeats: { description: 'Default false.', ...FLAG_OR_NULL },
  };
}

export function maintenanceSchemas(): Record<string, JsonSchema> {
  const properties: { [K in keyof MaintenanceWindow]-?: JsonSchema } = {
    id: ref('Id'),
    name: { type: 'string' },
    starts_at: nullable(ref('Timestamp')),
    ends_at: nullable(ref('Timestamp')),
    repeat: { anyOf: [ref('MaintenanceRepeat'), { type: 'null' }] },
    device_ids: { type: 'array', items: ref('Id') },
    all_devices: { type: 'boolean' },
    blacklist_monitor_ids: { type: 'array', items: ref('Id') },
    all_blacklist_monitors: { type: 'boolean' },
    heartbeat_ids: { type: 'array', items: ref('Id') },
    all_heartbeats: { type: 'boolean' },
    created_at: ref('Timestamp'),
    active_now: { type: 'boolean', description: 'Whether an occurrence is in force as the answer is made.' },
    next_start_at: {
      description: 'The start of the occurrence in force, else of the next; null when none is left.',
      ...nullable(ref('Timestamp')),
    },
    next_end_at: { description: 'Its end.', ...nullable(ref('Timestamp')) },
  };
  const envelope = (data: JsonSchema, description: string): JsonSchema => ({
    type: 'object',
    description,
    required: ['success', 'data'],
    properties: { success: { const: true }, data },
  });
  return {
    MaintenanceRepeat: repeatSchema(),
    MaintenanceWindowInput: {
      type: 'object',
      description:
        'A maintenance window: one-off (starts_at and ends_at) or weekly (repeat), for chosen or all records. At least one record or all_* is required.',
      required: ['name'],
      additionalProperties: false,
      properties: inputProperties(),
    },
    MaintenanceWindowUpdate: {
      type: 'object',
      description:
        "Changes to a maintenance window: any subset of the create's fields, the window that results judged as a whole (to turn a one-off window weekly, give repeat with starts_at and ends_at null).",
      additionalProperties: false,
      properties: inputProperties(),
    },
    MaintenanceWindow: {
      type: 'object',
      description: 'A maintenance window.',
      required: Object.keys(properties),
      properties,
    },
    MaintenanceWindowEnvelope: envelope(ref('MaintenanceWindow'), 'One maintenance window.'),
    MaintenanceWindowListEnvelope: envelope(
      { type: 'array', items: ref('MaintenanceWindow') },
      'Maintenance windows, ascending by id.',
    ),
  };
}
