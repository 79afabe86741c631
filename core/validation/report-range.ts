import type { ErrorDetail } from '../http/api-error.ts';
import type { ReportRange } from '../reports/report-records.ts';
import { detail, type FieldHints } from './details.ts';

// The `from` and `to` of the report routes (docs/contract.md, "6.12 Reports").

const DAY_MS = 86_400_000;
/** The range a report covers when the request names neither end: the last 30 days. */
export const DEFAULT_REPORT_RANGE_MS = 30 * DAY_MS;
/** The longest range a report answers: the default report retention. */
export const MAX_REPORT_RANGE_MS = 400 * DAY_MS;
/** How far ahead of the API's clock `to` may lie: a client's clock a little ahead is no error. */
export const MAX_FUTURE_MS = 60_000;

export const reportRangeHints: FieldHints = {
  from: 'an RFC 3339 timestamp before to, at most 400 days before it',
  to: 'an RFC 3339 timestamp at most a minute after now',
};

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d{1,9})?(?:[Zz]|[+-](\d\d):(\d\d))$/;

/**
 * A timestamp as RFC 3339 writes it (a `Z` or an offset required), read as milliseconds since the
 * epoch; undefined for anything else. Every part is held to its range, because `Date.parse`
 * quietly rolls 30 February over into March and reads 24:00 as the next day. A leap second (`:60`)
 * is refused: the API's clock has none. Digits past the millisecond are dropped, not rounded.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leapFebruary = month === 2 && day === 29;
  const isLeapYear = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || (leapFebruary && !isLeapYear)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return undefined;
  const ms = Date.parse(text.replace(/\.(\d{1,3})\d*/, '.$1'));
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * `from` and `to` of a report request, as UTC ISO 8601 with milliseconds, or the problems found
 * (pushed onto `details`; a field already there is not judged again). Without `to` the range ends
 * at `now`; without `from` it begins 30 days before its end. A `to` up to a minute ahead of `now`
 * is read as `now`: nothing after now is known yet, so the answer says where it really ends.
 */
export function parseReportRange(
  values: Readonly<Record<string, string>>,
  now: number,
  details: ErrorDetail[],
): ReportRange | undefined {
  const judged = new Set(details.map((d) => d.field));
  const problem = (field: 'from' | 'to', code: ErrorDetail['code']) => {
    if (!judged.has(field)) details.push(detail(field, code, reportRangeHints));
    judged.add(field);
  };
  let from = values.from === undefined ? undefined : parseRfc3339(values.from);
  let to = values.to === undefined ? undefined : parseRfc3339(values.to);
  if (values.from !== undefined && from === undefined) problem('from', 'invalid_value');
  if (values.to !== undefined && to === undefined) problem('to', 'invalid_value');
  if (to !== undefined && to > now + MAX_FUTURE_MS) problem('to', 'out_of_range');
  if (judged.has('from') || judged.has('to')) return undefined;
  to = Math.min(to ?? now, now);
  from ??= to - DEFAULT_REPORT_RANGE_MS;
  if (from >= to || to - from > MAX_REPORT_RANGE_MS) {
    problem('from', 'out_of_range');
    return undefined;
  }
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
