import { jsonElements, successBodyOf } from '../http/api-response.ts';
import type { ClosedSeriesDays, ResponseTimePoint, ResponseTimeQuery } from '../reports/report-records.ts';
import { DAY_MS } from '../reports/rollups.ts';
import type { RouteContext } from './route-context.ts';

// `GET /devices/response-times` in UTC days (bucket=day without time_zone) on a store that says
// which days are closed (ReportStore.closedSeriesDays): the points of the closed days wholly inside
// the range come from the API's ClosedDayCache, read from the store once; the days still open and
// the days the range cuts are read as without it. The body
// is the one the series read whole would give, byte for byte: the series is in day order, and a
// JSON array is its elements' JSON joined by commas.

const iso = (day: number) => new Date(day * DAY_MS).toISOString();

/**
 * The points of the days numbered [from, to) (days since the epoch), as each day's JSON elements
 * by day number; undefined when the device is gone.
 */
async function readDays(
  call: RouteContext,
  deviceId: number,
  from: number,
  to: number,
): Promise<Map<number, string> | undefined> {
  const points = await call.store.listResponseTimes(call.key.user_id, deviceId, {
    from: iso(from),
    to: iso(to),
    bucket: 'day',
  });
  if (points === undefined) return undefined;
  const byDay = new Map<number, ResponseTimePoint[]>();
  for (const point of points) {
    const day = Date.parse(point.at) / DAY_MS;
    const list = byDay.get(day);
    if (list === undefined) byDay.set(day, [point]);
    else list.push(point);
  }
  const days = new Map<number, string>();
  for (let day = from; day < to; day++) days.set(day, jsonElements(byDay.get(day) ?? []));
  return days;
}

/**
 * The JSON elements of the closed days numbered [first, end): the run kept for them, or the days
 * kept, the missing ones read from the store in one span and kept; undefined when the device is
 * gone.
 */
async function closedDaysJson(
  call: RouteContext,
  deviceId: number,
  first: number,
  end: number,
): Promise<string | undefined> {
  const cache = call.closedDays;
  const run = cache.run(deviceId, first, end);
  if (run !== undefined) return run;
  const kept = cache.days(deviceId);
  const known: (string | undefined)[] = [];
  let [missingFrom, missingTo] = [end, end];
  for (let day = first; day < end; day++) {
    const json = kept?.get(day);
    known.push(json);
    if (json !== undefined) continue;
    missingFrom = Math.min(missingFrom, day);
    missingTo = day + 1;
  }
  const read =
    missingFrom < missingTo ? await readDays(call, deviceId, missingFrom, missingTo) : new Map<number, string>();
  if (read === undefined) return undefined;
  for (const [day, json] of read) cache.set(deviceId, day, json);
  const parts: string[] = [];
  known.forEach((json, i) => {
    const day = json ?? read.get(first + i)!;
    if (day !== '') parts.push(day);
  });
  const joined = parts.join(',');
  cache.setRun(deviceId, first, end, joined);
  return joined;
}

/** The JSON elements of the series over [from, to) read from the store; undefined when the device is gone. */
async function readJson(call: RouteContext, deviceId: number, from: number, to: number): Promise<string | undefined> {
  if (from >= to) return '';
  const points = await call.store.listResponseTimes(call.key.user_id, deviceId, {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    bucket: 'day',
  });
  return points === undefined ? undefined : jsonElements(points);
}

/**
 * The answer's body for `query` (bucket=day, UTC), given where the device's daily rows stand;
 * undefined when the device is not the user's (any more).
 */
export async function utcDaySeriesBody(
  call: RouteContext,
  deviceId: number,
  query: ResponseTimeQuery,
  closed: ClosedSeriesDays,
): Promise<string | undefined> {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  // Days by number (days since the epoch): small integers, the cheapest keys a Map has. Only days
  // wholly inside the range are kept: a day the range cuts counts the checks inside the range,
  // which depend on the range (and on which raw results the retention left), and is read afresh.
  const wholeFrom = Math.ceil(from / DAY_MS);
  const wholeTo = Math.floor(to / DAY_MS);
  // The closed days wholly inside the range which may have rows: none before firstDay has any (the
  // retention removed them, or the device had none), whatever the cache still holds.
  const closedUntil = Date.parse(closed.closedUntil) / DAY_MS;
  const firstDay = closed.firstDay === null ? closedUntil : Date.parse(closed.firstDay) / DAY_MS;
  const closedEnd = Math.min(wholeTo, closedUntil);
  const first = Math.max(wholeFrom, firstDay);
  // Read from the store: the part of the day the range begins in, and everything from the first
  // day not kept (an open day, or the day the range ends in) on.
  const headTo = Math.min(wholeFrom * DAY_MS, to);
  const restFrom = Math.max(wholeFrom, closedEnd) * DAY_MS;
  const [head, closedJson, rest] = await Promise.all([
    readJson(call, deviceId, from, headTo),
    first < closedEnd ? closedDaysJson(call, deviceId, first, closedEnd) : '',
    readJson(call, deviceId, restFrom, to),
  ]);
  if (head === undefined || closedJson === undefined || rest === undefined) return undefined;
  const parts = [head, closedJson, rest].filter((part) => part !== '');
  return successBodyOf(`[${parts.join(',')}]`);
}
