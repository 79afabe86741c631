import { successResponse, type ApiResponse } from '../http/api-response.ts';
import { refuseQuery } from '../validation/list-query.ts';
import type { RouteContext } from './route-context.ts';

/**
 * GET /locations: every location with a worker heartbeat in the last 24 hours, by name, with its
 * live workers (docs/engine.md, "Locations"). Not per user: the workers serve every user. Read
 * fresh on every request, as the store's clock says who is live.
 */
export async function listLocations(call: RouteContext): Promise<ApiResponse> {
  refuseQuery(call.url.query);
  return successResponse(200, await call.store.listLocations());
}
