import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { availabilityReport } from '../reports/availability.ts';
import { parseRecordRangeQuery } from '../validation/report-query.ts';
import { reusedAnswer } from './reused-answer.ts';
import type { RouteContext } from './route-context.ts';

/**
 * `GET /devices/availability?id=&from=&to=` (docs/contract.md, "6.12 Reports"): how one device of
 * the key's user spent the range, from its status timeline, and its availability. Another user's
 * device and a missing one are the same 404, as for results. The answer is kept while the store's
 * change marker stays the same, as a list's is: a status change, or retention, moves the marker.
 */
export async function getAvailability(call: RouteContext): Promise<ApiResponse> {
  const { id, range } = parseRecordRangeQuery(call.url.query, call.now);
  return reusedAnswer(call, `${id} ${range.from} ${range.to}`, async () => {
    const totals = await call.store.deviceStatusTotals(call.key.user_id, id, range);
    if (totals === undefined) throw errors.notFound('device_not_found');
    return successResponse(200, availabilityReport(range, totals));
  });
}
