import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { cronProblem } from '../heartbeats/schedule.ts';
import type { HeartbeatSettings } from '../records/index.ts';
import { isTimeZone } from '../time-zones.ts';
import { detail, type FieldHints } from './details.ts';
import { flag, integer, optional, text } from './field-schemas.ts';
import { notifyEntries, notifyFields, notifyHints } from './notify-fields.ts';
import { failIfAny, parseFields } from './parse-fields.ts';

/** The shortest period and grace, and the longest of any duration: a minute, and a year. */
export const MIN_PERIOD_S = 60;
export const MAX_DURATION_S = 31_536_000;
export const DEFAULT_GRACE_S = 300;

export const heartbeatSchema = v.object(
  {
    name: optional(
      v.pipe(
        text(100),
        v.check((s) => s.trim().length > 0, 'invalid_value'),
      ),
    ),
    period_s: optional(integer(MIN_PERIOD_S, MAX_DURATION_S)),
    schedule: optional(text(100)),
    time_zone: optional(v.pipe(v.string('invalid_type'), v.check(isTimeZone, 'invalid_value'))),
    grace_s: optional(integer(MIN_PERIOD_S, MAX_DURATION_S)),
    max_runtime_s: optional(integer(1, MAX_DURATION_S)),
    min_runtime_s: optional(integer(1, MAX_DURATION_S)),
    is_enabled: optional(flag()),
    channel_ids: notifyEntries.channel_ids,
  },
  'invalid_type',
);

export const heartbeatHints: FieldHints = {
  name: 'text of 1 to 100 characters without control characters',
  period_s: `an integer from ${MIN_PERIOD_S} to ${MAX_DURATION_S} (seconds), or schedule instead`,
  schedule: 'a five-field cron expression that fires (such as "0 3 * * *"), or period_s instead',
  time_zone: 'an IANA time zone such as Europe/Berlin',
  grace_s: `an integer from ${MIN_PERIOD_S} to ${MAX_DURATION_S} (seconds)`,
  max_runtime_s: `an integer from 1 to ${MAX_DURATION_S} (seconds)`,
  min_runtime_s: `an integer from 1 to ${MAX_DURATION_S} (seconds), less than max_runtime_s`,
  is_enabled: 'true, false, 0 or 1',
  channel_ids: notifyHints.channel_ids,
};

/** A cron expression as kept: its five fields, one space apart. */
function normalizeCron(expression: string): string {
  return expression.trim().split(/\s+/).join(' ');
}

/**
 * A heartbeat's body as its settings, or a 400 listing every problem (docs/heartbeats.md, "The
 * resource"): each field's own type and range, then the rules between them: exactly one of
 * `period_s` and `schedule`, a schedule that parses as five cron fields and fires, in a known
 * zone, and a minimum run time below the maximum.
 */
export function parseHeartbeatInput(input: Record<string, unknown>): HeartbeatSettings {
  const { fields: f, details } = parseFields(heartbeatSchema, input, heartbeatHints);
  const bad = new Set(details.map((d) => d.field));
  const problem = (found: ErrorDetail) => {
    if (bad.has(found.field)) return;
    details.push(found);
    bad.add(found.field);
  };

  const hasPeriod = input.period_s != null;
  const hasSchedule = input.schedule != null;
  if (!hasPeriod && !hasSchedule) {
    problem({ field: 'period_s', code: 'missing', message: 'period_s or schedule is required.' });
  } else if (hasPeriod && hasSchedule) {
    problem({
      field: 'schedule',
      code: 'not_applicable',
      message: 'schedule and period_s cannot both be given: a heartbeat has one or the other.',
    });
  }
  const timeZone = f.time_zone ?? 'UTC';
  if (f.schedule != null && !bad.has('time_zone') && !bad.has('schedule')) {
    const found = cronProblem(f.schedule, timeZone);
    if (found === 'invalid_value') problem(detail('schedule', 'invalid_value', heartbeatHints));
    if (found === 'out_of_range')
      problem({ field: 'schedule', code: 'invalid_value', message: 'schedule never fires: no date matches it.' });
  }
  const min = f.min_runtime_s ?? null;
  const max = f.max_runtime_s ?? null;
  if (min !== null && max !== null && min >= max) problem(detail('min_runtime_s', 'invalid_value', heartbeatHints));

  failIfAny(details);
  return {
    name: f.name ?? null,
    period_s: f.period_s ?? null,
    schedule: f.schedule == null ? null : normalizeCron(f.schedule),
    time_zone: timeZone,
    grace_s: f.grace_s ?? DEFAULT_GRACE_S,
    max_runtime_s: max,
    min_runtime_s: min,
    is_enabled: f.is_enabled ?? true,
    channel_ids: notifyFields(f).channel_ids,
  };
}
