// Days in a time zone for `bucket=day` with `time_zone` (docs/engine.md, "Reports"). Rollups are
// hourly in UTC, so a local day is the hours whose start falls in it: in a zone whose offset is
// not a whole number of hours (India's +05:30, Nepal's +05:45) an hour that straddles local
// midnight counts in the day it starts in.

import { instantOf, offsetAt } from '../time-zones.ts';

/**
 * The instant (UTC, ISO 8601) the local day of `zone` containing `at` starts: local midnight, or,
 * where a change of offset skips midnight, the first instant after the gap.
 */
export function zoneDayStart(at: string | number, zone: string): string {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  const wall = ms + offsetAt(zone, ms);
  return new Date(instantOf(zone, wall - (((wall % 86_400_000) + 86_400_000) % 86_400_000))).toISOString();
}
