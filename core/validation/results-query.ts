import * as v from 'valibot';
import { errors } from '../http/errors.ts';
import { issuesToDetails, type FieldHints } from './details.ts';
import { decimal, MAX_ID, parseRecordId, queryValues } from './list-query.ts';

/** A results page when the request gives no `limit` (docs/engine.md, "What the API shows"). */
export const DEFAULT_RESULTS_LIMIT = 100;

/**
 * `limit` and `before_id` of a results request, judged like a list's `limit` and `after_id`.
 * `before_id` is an id, so it starts at 1 (`after_id` starts at 0, its default).
 */
export const resultsQuerySchema = v.object(
  {
    limit: v.optional(decimal(1, 1000)),
    before_id: v.optional(decimal(1, MAX_ID)),
  },
  'invalid_type',
);

export const resultsQueryHints: FieldHints = {
  limit: 'an integer from 1 to 1000, given once',
  before_id: `an integer from 1 to ${MAX_ID}, given once`,
};

export interface ResultsQuery {
  /** The record whose results are asked for. */
  id: number;
  limit: number;
  /** Only results with a smaller id; absent: from the newest. */
  beforeId: number | undefined;
}

const RESULTS_PARAMS = new Set(['id', 'limit', 'before_id']);

/**
 * The query of `GET /devices/results` and `GET /blacklist-monitors/results`: `id` as a delete
 * reads it (a bad one is `invalid_id`, before anything else), then `limit` and `before_id` as a
 * list reads its parameters (unknown, repeated or invalid ones are a 400 with details).
 */
export function parseResultsQuery(query: string): ResultsQuery {
  const id = parseRecordId(query);
  const { values, details } = queryValues(query, RESULTS_PARAMS, resultsQueryHints);
  for (const name of new Set(details.map((d) => d.field))) delete values[name];
  delete values.id;
  const result = v.safeParse(resultsQuerySchema, values, { abortEarly: false });
  if (!result.success) details.push(...issuesToDetails(result.issues, resultsQueryHints));
  if (details.length > 0 || !result.success) throw errors.validationFailed(details);
  return { id, limit: result.output.limit ?? DEFAULT_RESULTS_LIMIT, beforeId: result.output.before_id };
}
