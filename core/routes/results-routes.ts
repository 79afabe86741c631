import { errors, type NotFoundCode } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import type { MonitoredKind, ResultsPage } from '../store/monitoring-store.ts';
import { parseResultsQuery } from '../validation/results-query.ts';
import type { RouteContext } from './route-context.ts';

/**
 * `GET /devices/results` and `GET /blacklist-monitors/results` (docs/engine.md, "What the API
 * shows"): one record's check results, newest first, one page at a time.
 *
 * The page is read as `limit + 1` rows so that the extra one says whether older results follow,
 * without a second query; the `Link` then asks for the results below the page's last (oldest) id.
 * Like a list's Link it is a path, resolved against the request URL, and it repeats `limit` even
 * when the request left it to the default, so that following it never changes the page size.
 *
 * Results are never served from the list cache: the store's change marker follows writes to
 * devices and monitors, and a check result is not promised to move it.
 */
export function resultsRoute(kind: MonitoredKind, notFound: 'device_not_found' | 'blacklist_monitor_not_found') {
  return newestFirstRoute((call, id, page) => call.store.listCheckResults(call.key.user_id, kind, id, page), notFound);
}

/**
 * A route that pages one record's rows newest first by id, as the results routes do (and
 * `GET /webhooks/deliveries`): `read` answers undefined for a record that is missing or another
 * user's.
 */
export function newestFirstRoute<T extends { id: number }>(
  read: (call: RouteContext, id: number, page: ResultsPage) => Promise<T[] | undefined>,
  notFound: NotFoundCode,
) {
  return async (call: RouteContext): Promise<ApiResponse> => {
    const { id, limit, beforeId } = parseResultsQuery(call.url.query);
    const page = beforeId === undefined ? { limit: limit + 1 } : { limit: limit + 1, beforeId };
    const rows = await read(call, id, page);
    // Missing and another user's record are the same 404: nobody learns whether an id exists.
    if (rows === undefined) throw errors.notFound(notFound);
    const headers: Record<string, string> = {};
    if (rows.length > limit) {
      rows.length = limit;
      headers.link = `<${call.url.pathname}?id=${id}&limit=${limit}&before_id=${rows[limit - 1]!.id}>; rel="next"`;
    }
    return successResponse(200, rows, headers);
  };
}
