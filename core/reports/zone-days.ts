// Days in a time zone for `bucket=day` with `time_zone` (docs/engine.md, "Reports"). Rollups are
// hourly in UTC, so a local day is the hours whose start falls in it: in a zone whose offset is
// not a whole number of hours (India's +05:30, Nepal's +05:45) an hour that straddles local
// midnight counts in the day it starts in.

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The wall-clock time in `zone` at `ms`, as if it were UTC, in epoch ms. */
function wallClock(ms: number, zone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatFor(zone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isKnownTimeZone(zone: string): boolean {
  try {
    formatFor(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The instant (UTC, ISO 8601) the local day of `zone` containing `at` starts: local midnight, or
 * the first instant of the day where a change of offset skips midnight.
 */
export function zoneDayStart(at: string | number, zone: string): string {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  const wall = wallClock(ms, zone);
  const midnightWall = wall - (((wall % 86_400_000) + 86_400_000) % 86_400_000);
  // The instant whose wall clock is midnight: the offset at `ms` first, then at the guess (it
  // differs when the offset changed since midnight).
  let guess = midnightWall - (wall - ms);
  guess = midnightWall - (wallClock(guess, zone) - guess);
  // Where midnight did not exist, the guess lands in the day before: the day starts where its
  // wall clock first reads this date.
  if (wallClock(guess, zone) < midnightWall) guess += midnightWall - wallClock(guess, zone);
  return new Date(guess).toISOString();
}
