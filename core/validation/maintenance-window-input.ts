import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { isTimeZone } from '../time-zones.ts';
import { WEEKDAYS, type MaintenanceRepeat, type NewMaintenanceWindow, type Weekday } from '../records/index.ts';
import { detail, type FieldHints } from './details.ts';
import { flag, integer, optional, text } from './field-schemas.ts';
import { failIfAny, parseFields } from './parse-fields.ts';

/** The longest a one-off window may last, and a weekly occurrence: 31 days. */
export const MAX_WINDOW_S = 31 * 86_400;
/** How many ids a window may name per kind. */
export const MAX_WINDOW_IDS = 1000;

const RFC3339 = /^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d{1,9})?([Zz]|[+-]\d\d:\d\d)$/;
const timestamp = () =>
  v.pipe(
    v.string('invalid_type'),
    v.check((s) => RFC3339.test(s) && Number.isFinite(Date.parse(s)), 'invalid_value'),
  );
const ids = () =>
  v.pipe(v.array(integer(1, Number.MAX_SAFE_INTEGER), 'invalid_type'), v.maxLength(MAX_WINDOW_IDS, 'out_of_range'));

export const maintenanceWindowSchema = v.object(
  {
    name: v.pipe(
      text(200),
      v.check((s) => s.trim().length > 0, 'invalid_value'),
    ),
    starts_at: optional(timestamp()),
    ends_at: optional(timestamp()),
    // Judged field by field below (repeatSchema), so that each of its problems names its field.
    repeat: optional(v.record(v.string(), v.unknown(), 'invalid_type')),
    device_ids: optional(ids()),
    all_devices: optional(flag()),
    blacklist_monitor_ids: optional(ids()),
    all_blacklist_monitors: optional(flag()),
    heartbeat_ids: optional(ids()),
    all_heartbeats: optional(flag()),
  },
  'invalid_type',
);

const repeatSchema = v.object(
  {
    days: v.pipe(
      v.array(v.pipe(v.string('invalid_type'), v.picklist(WEEKDAYS, 'invalid_value')), 'invalid_type'),
      v.minLength(1, 'out_of_range'),
      v.check((days) => new Set(days).size === days.length, 'invalid_value'),
    ),
    start: v.pipe(v.string('invalid_type'), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'invalid_value')),
    duration_s: integer(1, MAX_WINDOW_S),
    time_zone: v.pipe(v.string('invalid_type'), v.check(isTimeZone, 'invalid_value')),
  },
  'invalid_type',
);

export const maintenanceWindowHints: FieldHints = {
  name: 'text of 1 to 200 characters without control characters',
  starts_at: 'an RFC 3339 timestamp',
  ends_at: 'an RFC 3339 timestamp after starts_at, at most 31 days later',
  repeat: 'an object {days, start, duration_s, time_zone}',
  'repeat.days': `a non-empty list of distinct days among ${WEEKDAYS.join(', ')}`,
  'repeat.start': 'a local time HH:MM (24-hour)',
  'repeat.duration_s': `an integer from 1 to ${MAX_WINDOW_S} (seconds)`,
  'repeat.time_zone': 'an IANA time zone such as Europe/Berlin',
  device_ids: `a list of at most ${MAX_WINDOW_IDS} ids of your devices`,
  all_devices: 'true, false, 0 or 1',
  blacklist_monitor_ids: `a list of at most ${MAX_WINDOW_IDS} ids of your blacklist monitors`,
  all_blacklist_monitors: 'true, false, 0 or 1',
  heartbeat_ids: `a list of at most ${MAX_WINDOW_IDS} ids of your heartbeats`,
  all_heartbeats: 'true, false, 0 or 1',
};

const stamp = (s: string) => new Date(Date.parse(s)).toISOString();

/**
 * A maintenance window's body as the window to store (without its ids checked against the
 * store: see `foreignIdDetails`), or a 400 listing every problem (docs/contract.md §6.10).
 */
export function parseMaintenanceWindowInput(input: Record<string, unknown>, createdAt: string): NewMaintenanceWindow {
  const { fields: f, details } = parseFields(maintenanceWindowSchema, input, maintenanceWindowHints);
  const bad = new Set(details.map((d) => d.field));
  const problem = (field: string, code: ErrorDetail['code']) => {
    if (!bad.has(field)) details.push(detail(field, code, maintenanceWindowHints));
    bad.add(field);
  };

  let repeat: MaintenanceRepeat | null = null;
  if (f.repeat != null) {
    const nested = parseFields(repeatSchema, f.repeat, {});
    for (const found of nested.details) problem(`repeat.${found.field}`, found.code);
    if (nested.details.length === 0) {
      const r = nested.fields as MaintenanceRepeat;
      // One order whatever the request's, as for a webhook's events.
      repeat = { ...r, days: WEEKDAYS.filter((day) => r.days.includes(day)) as Weekday[] };
    }
  }

  const startsAt = f.starts_at ?? null;
  const endsAt = f.ends_at ?? null;
  if (f.repeat != null) {
    // A weekly window has no dates of its own.
    if (input.starts_at != null) problem('starts_at', 'not_applicable');
    if (input.ends_at != null) problem('ends_at', 'not_applicable');
  } else {
    if (input.starts_at == null) problem('starts_at', 'missing');
    if (input.ends_at == null) problem('ends_at', 'missing');
    if (startsAt !== null && endsAt !== null) {
      const span = Date.parse(endsAt) - Date.parse(startsAt);
      if (span <= 0) problem('ends_at', 'invalid_value');
      else if (span > MAX_WINDOW_S * 1000) problem('ends_at', 'out_of_range');
    }
  }

  const deviceIds = [...new Set(f.device_ids ?? [])].sort((a, b) => a - b);
  const monitorIds = [...new Set(f.blacklist_monitor_ids ?? [])].sort((a, b) => a - b);
  const allDevices = f.all_devices ?? false;
  const allMonitors = f.all_blacklist_monitors ?? false;
  const heartbeatIds = [...new Set(f.heartbeat_ids ?? [])].sort((a, b) => a - b);
  const allHeartbeats = f.all_heartbeats ?? false;
  const named = [
    'device_ids',
    'blacklist_monitor_ids',
    'heartbeat_ids',
    'all_devices',
    'all_blacklist_monitors',
    'all_heartbeats',
  ].some((name) => bad.has(name));
  const nothing =
    deviceIds.length === 0 &&
    monitorIds.length === 0 &&
    heartbeatIds.length === 0 &&
    !allDevices &&
    !allMonitors &&
    !allHeartbeats;
  if (!named && nothing) problem('device_ids', 'missing');

  failIfAny(details);
  return {
    name: f.name!,
    starts_at: repeat === null ? stamp(startsAt!) : null,
    ends_at: repeat === null ? stamp(endsAt!) : null,
    repeat,
    device_ids: deviceIds,
    all_devices: allDevices,
    blacklist_monitor_ids: monitorIds,
    all_blacklist_monitors: allMonitors,
    heartbeat_ids: heartbeatIds,
    all_heartbeats: allHeartbeats,
    created_at: createdAt,
  };
}

/** A 400's details for ids that are not the user's: `invalid_value`, naming the field and the id. */
export function foreignIdDetails(
  field: 'device_ids' | 'blacklist_monitor_ids' | 'heartbeat_ids',
  foreign: readonly number[],
): ErrorDetail[] {
  const noun = field === 'device_ids' ? 'device' : field === 'heartbeat_ids' ? 'heartbeat' : 'blacklist monitor';
  const message = (id: number) => `${field}: ${id} is not the id of one of your ${noun}s.`;
  return foreign.map((id) => ({ field, code: 'invalid_value', message: message(id) }));
}
