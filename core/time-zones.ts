// Time zones by the runtime's own zone data (`Intl`): no offset table is written here, and a
// zone's daylight-saving changes are followed as the runtime knows them. Maintenance windows
// (core/maintenance/window-times.ts) and report days (core/reports/zone-days.ts) both use it.

const DAY_MS = 86_400_000;

const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = FORMATTERS.get(zone);
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
    if (FORMATTERS.size < 1000) FORMATTERS.set(zone, format);
  }
  return format;
}

/** Whether the runtime knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  if (zone === '' || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `at` (ms), from the local wall clock Intl gives for that instant. */
export function offsetAt(zone: string, at: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return local - Math.floor(at / 1000) * 1000;
}

/**
 * The instant at which the wall clock of `zone` shows `local` (a wall time written as if it were
 * UTC). A wall time that the zone skips (the hour lost in spring) is read with the offset before
 * the change, so it lands after the gap; a wall time that happens twice (the hour repeated in
 * autumn) is its first occurrence.
 */
export function instantOf(zone: string, local: number): number {
  const before = offsetAt(zone, local - DAY_MS);
  const after = offsetAt(zone, local + DAY_MS);
  // Each candidate is right when the zone's offset at it is the offset it assumed.
  const early = local - before;
  const late = local - after;
  const candidates = [early, late].filter((at) => offsetAt(zone, at) === local - at).sort((a, b) => a - b);
  return candidates[0] ?? early;
}
