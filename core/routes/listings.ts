import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { parseRecordRangeQuery } from '../validation/report-query.ts';
import { reusedAnswer } from './reused-answer.ts';
import type { RouteContext } from './route-context.ts';

/**
 * `GET /blacklist-monitors/listings?id=&from=&to=` (docs/contract.md, "6.12 Reports"): the
 * monitor's listing periods that overlap the range, per zone: the blacklist equivalent of
 * incidents. Kept while the store's change marker stays the same, as a list is.
 */
export async function getListings(call: RouteContext): Promise<ApiResponse> {
  const { id, range } = parseRecordRangeQuery(call.url.query, call.now);
  return reusedAnswer(call, `${id} ${range.from} ${range.to}`, async () => {
    const periods = await call.store.listListingPeriods(call.key.user_id, id, range);
    if (periods === undefined) throw errors.notFound('blacklist_monitor_not_found');
    return successResponse(200, periods);
  });
}
