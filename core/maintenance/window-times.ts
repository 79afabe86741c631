import { WEEKDAYS, type MaintenanceRepeat, type MaintenanceWindowSettings } from '../records/index.ts';
import { instantOf, offsetAt } from '../time-zones.ts';

/**
 * When maintenance windows are in force (docs/contract.md §6.10). Weekly windows are local times in
 * an IANA zone, turned into instants with the runtime's own zone data (`Intl`): no offset table
 * is written here, and a zone's daylight-saving changes are followed as the runtime knows them.
 */

const DAY_MS = 86_400_000;

/** An occurrence of a window: [start, end) in ms since the epoch. */
export interface Occurrence {
  start: number;
  end: number;
}

/** The weekday index (0 = mon) of a wall-clock day written as UTC ms. */
const weekdayOf = (localDay: number) => (new Date(localDay).getUTCDay() + 6) % 7;

/** The occurrences of a weekly window whose start falls in [from - 8 days, to + 8 days], in order. */
function weeklyOccurrences(repeat: MaintenanceRepeat, from: number, to: number): Occurrence[] {
  const [hours, minutes] = repeat.start.split(':').map(Number) as [number, number];
  const days = new Set(repeat.days.map((day) => WEEKDAYS.indexOf(day)));
  const out: Occurrence[] = [];
  // Wall-clock days around the span, each as midnight written as UTC.
  const first = Math.floor((from + offsetAt(repeat.time_zone, from)) / DAY_MS) * DAY_MS - 8 * DAY_MS;
  const last = Math.floor((to + offsetAt(repeat.time_zone, to)) / DAY_MS) * DAY_MS + 8 * DAY_MS;
  for (let day = first; day <= last; day += DAY_MS) {
    if (!days.has(weekdayOf(day))) continue;
    const start = instantOf(repeat.time_zone, day + hours * 3_600_000 + minutes * 60_000);
    out.push({ start, end: start + repeat.duration_s * 1000 });
  }
  return out;
}

/** The occurrence in force at `at`, if any: the one that started last, when weekly ones overlap. */
export function occurrenceAt(window: MaintenanceWindowSettings, at: number): Occurrence | null {
  if (window.repeat === null) {
    const start = Date.parse(window.starts_at!);
    const end = Date.parse(window.ends_at!);
    return start <= at && at < end ? { start, end } : null;
  }
  const active = weeklyOccurrences(window.repeat, at, at).filter((o) => o.start <= at && at < o.end);
  return active.at(-1) ?? null;
}

/** The occurrence in force at `at`, else the next one to start; null when none is left. */
export function currentOrNext(window: MaintenanceWindowSettings, at: number): Occurrence | null {
  const now = occurrenceAt(window, at);
  if (now !== null) return now;
  if (window.repeat === null) {
    const start = Date.parse(window.starts_at!);
    return start > at ? { start, end: Date.parse(window.ends_at!) } : null;
  }
  return weeklyOccurrences(window.repeat, at, at + 7 * DAY_MS).find((o) => o.start > at) ?? null;
}
