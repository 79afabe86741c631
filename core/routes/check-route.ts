import { toTimestamp } from '../clock.ts';
import { errors } from '../http/errors.ts';
import { successResponse, type ApiResponse } from '../http/api-response.ts';
import type { MonitoredKind } from '../store/monitoring-store.ts';
import { parseIdAlone } from '../validation/list-query.ts';
import type { RouteContext } from './route-context.ts';

/** The least time between two on-demand checks of one record that take effect. */
export const CHECK_REQUEST_GAP_MS = 60_000;

/**
 * `POST /devices/check` and `POST /blacklist-monitors/check` (docs/engine.md, "Checks on demand"):
 * the record becomes due at once, so a running worker checks it at its next claim, and the answer
 * is 202 with the record as it stands. The check itself happens later; its results show in the
 * results route. At most once a minute per record: sooner is 429 `check_too_soon` with
 * `Retry-After`; a disabled record is 409 `record_paused`.
 */
export function checkRoute(kind: MonitoredKind, notFound: 'device_not_found' | 'blacklist_monitor_not_found') {
  return async (call: RouteContext): Promise<ApiResponse> => {
    // The id and its parameters are judged as a delete judges them.
    const id = parseIdAlone(call.url.query);
    const at = toTimestamp(call.now);
    const result = await call.store.requestCheck(call.key.user_id, kind, id, at, CHECK_REQUEST_GAP_MS);
    switch (result.outcome) {
      case 'due':
        return successResponse(202, result.record);
      case 'not_found':
        throw errors.notFound(notFound);
      case 'paused':
        throw errors.recordPaused();
      case 'too_soon': {
        // Whole seconds, rounded up: a client that waits that long is never refused again for the gap.
        const seconds = Math.max(1, Math.ceil((new Date(result.retry_at).getTime() - call.now) / 1000));
        throw errors.checkTooSoon(seconds);
      }
    }
  };
}
