import type { ApiResponse } from '../http/api-response.ts';
import type { RouteContext } from './route-context.ts';

/**
 * The answer kept for `key` (the user, path and query as resolved) while the store's change
 * marker stays the same, or `produce`'s, kept for the next request (docs/decisions.md, "List
 * answers, and why they are never stale"). A store without a marker answers every request afresh.
 */
export async function reusedAnswer(
  call: RouteContext,
  key: string,
  produce: () => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const asked = call.store.changeMarker?.(call.arrivedAt);
  // Awaited only when it is a promise: a store that knows its marker at once spares the answer a turn.
  const marker = typeof asked === 'object' ? await asked : asked;
  if (marker === undefined) return produce();
  const fullKey = `${call.key.user_id} ${call.url.pathname} ${key}`;
  const cached = call.listCache.get(fullKey, marker);
  if (cached !== undefined) return cached;
  const response = await produce();
  call.listCache.set(fullKey, marker, response);
  return response;
}
