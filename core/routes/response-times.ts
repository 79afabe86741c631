import { jsonResponse, successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import type { ResponseTimeQuery } from '../reports/report-records.ts';
import { parseResponseTimesQuery } from '../validation/report-query.ts';
import { reusedAnswer } from './reused-answer.ts';
import type { RouteContext } from './route-context.ts';
import { utcDaySeriesBody } from './utc-day-series.ts';

/**
 * `GET /devices/response-times?id=&from=&to=&bucket=&time_zone=` (docs/contract.md, "6.12
 * Reports"): one device's response times per hour or day, by bucket start, probe and location.
 * The bucket still running is part of the series with what is recorded so far. The answer is kept
 * while the store's change marker stays the same: a recorded check, a rollup or retention moves it.
 * Read afresh, UTC days are answered with the closed days kept in memory when the store says which
 * days are closed.
 */
export async function getResponseTimes(call: RouteContext): Promise<ApiResponse> {
  const { id, query } = parseResponseTimesQuery(call.url.query, call.now);
  const key = `${id} ${query.from} ${query.to} ${query.bucket} ${query.time_zone ?? ''}`;
  return reusedAnswer(call, key, () => readResponseTimes(call, id, query));
}

async function readResponseTimes(call: RouteContext, id: number, query: ResponseTimeQuery): Promise<ApiResponse> {
  const { store } = call;
  if (query.bucket === 'day' && query.time_zone === undefined && store.closedSeriesDays !== undefined) {
    const closed = await store.closedSeriesDays(call.key.user_id, id);
    const body = closed === undefined ? undefined : await utcDaySeriesBody(call, id, query, closed);
    if (body === undefined) throw errors.notFound('device_not_found');
    return jsonResponse(200, body);
  }
  const points = await store.listResponseTimes(call.key.user_id, id, query);
  if (points === undefined) throw errors.notFound('device_not_found');
  return successResponse(200, points);
}
