// The days and times of a status page, in its time zone (docs/status-pages.md, "The page"): the
// bars are local days, and every time shown is local, from the runtime's own zone data.

import { zoneDayStart } from '../reports/zone-days.ts';
import { offsetAt } from '../time-zones.ts';

/** One local day: its date as the page shows it, and the instants it begins and ends (ms). */
export interface PageDay {
  date: string;
  start: number;
  end: number;
}

/** The local wall clock of `zone` at `at`, as UTC ms: what its digits say. */
const wall = (at: number, zone: string) => at + offsetAt(zone, at);

/** `count` local days of `zone` up to the one `now` is in, oldest first (the last one still running). */
export function pageDays(zone: string, count: number, now: number): PageDay[] {
  const days: PageDay[] = [];
  let end = Date.parse(zoneDayStart(Date.parse(zoneDayStart(now, zone)) + 36 * 3_600_000, zone));
  for (let i = 0; i < count; i++) {
    // The day before `end` begins at the local midnight of the instant just before it.
    const start = Date.parse(zoneDayStart(end - 1, zone));
    days.push({ date: new Date(wall(start, zone)).toISOString().slice(0, 10), start, end });
    end = start;
  }
  return days.reverse();
}

/** `2026-12-01 14:05` in `zone`. */
export function localTime(at: number, zone: string): string {
  return new Date(wall(at, zone)).toISOString().slice(0, 16).replace('T', ' ');
}

/** A duration in words: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function durationText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}
