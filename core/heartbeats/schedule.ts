import { Cron } from 'croner';

// When a heartbeat must next be told (docs/heartbeats.md, "Deadlines"): one period after the last
// success, or the schedule's next time after it, read in the heartbeat's time zone; grace added in
// both cases. Cron expressions are read by croner (docs/development.md, "Dependencies"): five fields,
// day of month and day of week joined by OR when both are restricted, as cron does; a time that
// the zone skips in spring runs at the first minute after the gap, one that it repeats in autumn
// runs once (on its first occurrence) when its minutes and hours are fixed.

/** A five-field expression: five fields of printable ASCII, separated by blanks. */
const FIVE_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;

/** The kept schedules, by zone and expression: a heartbeat's deadline is worked out at each ping. */
const SCHEDULES = new Map<string, Cron>();

function scheduleOf(expression: string, timeZone: string): Cron {
  const key = `${timeZone} ${expression}`;
  let cron = SCHEDULES.get(key);
  if (cron === undefined) {
    cron = new Cron(expression, { timezone: timeZone, mode: '5-part', paused: true });
    if (SCHEDULES.size >= 10_000) SCHEDULES.clear();
    SCHEDULES.set(key, cron);
  }
  return cron;
}

/**
 * Why a cron expression is refused, or undefined when it is a five-field expression that fires:
 * `invalid_value` when it does not parse (or is not five fields: `@daily` and second fields are
 * not cron's), `out_of_range` when it never fires (February 30th). The zone is assumed valid.
 */
export function cronProblem(expression: string, timeZone: string): 'invalid_value' | 'out_of_range' | undefined {
  if (!FIVE_FIELDS.test(expression)) return 'invalid_value';
  let cron: Cron;
  try {
    cron = scheduleOf(expression.trim(), timeZone);
  } catch {
    return 'invalid_value';
  }
  // croner searches up to several years ahead: a date that no year has (Feb 30) finds none.
  return cron.nextRun(new Date(0)) === null ? 'out_of_range' : undefined;
}

/** The settings a deadline depends on. */
export interface Timing {
  period_s: number | null;
  schedule: string | null;
  time_zone: string;
  grace_s: number;
}

/**
 * When a success at `afterMs` must be followed by the next, grace included: `afterMs + period +
 * grace`, or the schedule's first time strictly after `afterMs`, plus grace. Null for a schedule
 * that fires no more (which validation refuses, but a schedule may end with a leap day's last
 * year, say), in which case the heartbeat waits without a deadline.
 */
export function deadlineAfter(timing: Timing, afterMs: number): number | null {
  const grace = timing.grace_s * 1000;
  if (timing.schedule === null) return afterMs + (timing.period_s ?? 0) * 1000 + grace;
  const next = scheduleOf(timing.schedule.trim(), timing.time_zone).nextRun(new Date(afterMs));
  return next === null ? null : next.getTime() + grace;
}
