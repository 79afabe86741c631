import * as v from 'valibot';
import type { ErrorDetail } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';
import { detail, issuesToDetails, type FieldHints } from './details.ts';

export const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Decimal digits, judged by value: leading zeros are allowed and do not count. At most 16
 * significant digits pass, which `Number` reads exactly up to 2^53-1; the range check refuses the
 * rest. Written so that a long run of zeros is matched once, not backtracked over.
 */
export const DECIMAL = /^(?:0+|0*[1-9][0-9]{0,15})$/;

/**
 * A query integer as written: an optional minus and decimal digits, any number of them. Whether
 * it is in range is a separate question (`out_of_range`), so `-1` and `99999999999999999999` are
 * integers out of range, as `0` is for `limit` and `70000` is for a port in a body.
 */
export const QUERY_INTEGER = /^-?[0-9]+$/;

/** Whether a QUERY_INTEGER lies in [min, max] (min >= 0), read exactly: no float rounding of long runs. */
function inRange(text: string, min: number, max: number): boolean {
  const negative = text.startsWith('-');
  const digits = text.replace(/^-?0*/, '');
  if (digits === '') return min <= 0; // zero, however written (also -0)
  if (negative || digits.length > 16) return false;
  const value = Number(digits);
  return value >= min && value <= max;
}

/** A query value read as an integer in [min, max]: not an integer is invalid_type, out of range out_of_range. */
export const decimal = (min: number, max: number) =>
  v.pipe(
    v.string('invalid_type'),
    v.regex(QUERY_INTEGER, 'invalid_type'),
    v.check((text) => inRange(text, min, max), 'out_of_range'),
    v.transform(Number),
    v.minValue(min, 'out_of_range'),
    v.maxValue(max, 'out_of_range'),
  );

export const listQuerySchema = v.object(
  {
    limit: v.optional(decimal(1, 1000)),
    after_id: v.optional(decimal(0, MAX_ID)),
  },
  'invalid_type',
);

const hints: FieldHints = {
  limit: 'an integer from 1 to 1000, given once',
  after_id: `an integer from 0 to ${MAX_ID}, given once`,
};

export interface ListQuery {
  /** Absent: the whole list, streamed. */
  limit: number | undefined;
  afterId: number;
}

/**
 * Splits a query string into single values, reporting repeated and unknown parameters. Every
 * route takes only the parameters it documents, so a typo never passes silently.
 */
export function queryValues(
  query: string,
  known: ReadonlySet<string>,
  hintsOf: FieldHints,
): {
  values: Record<string, string>;
  details: ErrorDetail[];
} {
  const values: Record<string, string> = {};
  const details: ErrorDetail[] = [];
  if (query === '') return { values, details };
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(query)) {
    if (!known.has(name)) {
      if (!seen.has(name)) details.push(detail(name, 'unknown_field', hintsOf));
    } else if (seen.has(name)) {
      if (!details.some((d) => d.field === name)) details.push(detail(name, 'invalid_value', hintsOf));
    } else {
      values[name] = value;
    }
    seen.add(name);
  }
  return { values, details };
}

const LIST_PARAMS = new Set(['limit', 'after_id']);

/** A list asked without parameters, the usual poll: the whole list from the first record. */
const NO_QUERY: ListQuery = Object.freeze({ limit: undefined, afterId: 0 });

/** `limit` and `after_id` of a list request (docs/contract.md §6.4 Lists), or a 400 with details. */
export function parseListQuery(query: string): ListQuery {
  // Nothing to validate: the schema would only confirm that both parameters are absent.
  if (query === '') return NO_QUERY;
  const { values, details } = queryValues(query, LIST_PARAMS, hints);
  const repeated = new Set(details.map((d) => d.field));
  for (const name of repeated) delete values[name];
  const result = v.safeParse(listQuerySchema, values, { abortEarly: false });
  if (!result.success) details.push(...issuesToDetails(result.issues, hints));
  if (details.length > 0 || !result.success) throw errors.validationFailed(details);
  return { limit: result.output.limit, afterId: result.output.after_id ?? 0 };
}

const NO_PARAMS = new Set<string>();

/** Routes that take no query parameters refuse any, like lists refuse unknown ones. */
export function refuseQuery(query: string): void {
  if (query === '') return;
  const { details } = queryValues(query, NO_PARAMS, {});
  if (details.length > 0) throw errors.validationFailed(details);
}

const ID_ALONE_PARAMS = new Set(['id']);
const ID_ALONE = /^id=[0-9]+$/;

/**
 * The `id` query parameter of a route about one record: exactly once, decimal digits, 1 to 2^53-1;
 * anything else is `invalid_id`. Judged before any other parameter, so a bad id is always
 * `invalid_id` whatever else is wrong.
 */
export function parseRecordId(query: string): number {
  const ids = query === '' ? [] : new URLSearchParams(query).getAll('id');
  if (ids.length !== 1 || !DECIMAL.test(ids[0]!)) throw errors.invalidId();
  const id = Number(ids[0]);
  if (id < 1 || id > MAX_ID) throw errors.invalidId();
  return id;
}

/**
 * The `id` of a route that takes nothing else (get, update, delete, check; see `parseRecordId`):
 * any other parameter is refused.
 */
export function parseIdAlone(query: string): number {
  const id = parseRecordId(query);
  // The usual query, `id` alone and plain, has no other parameter to look for.
  if (ID_ALONE.test(query)) return id;
  const { details } = queryValues(query, ID_ALONE_PARAMS, {});
  if (details.length > 0) throw errors.validationFailed(details);
  return id;
}
