import { pingRoutes, type PingRouteOptions } from './ping-route.ts';
import type { PublicRoute } from './public-route.ts';
import { STATUS_ROUTES } from './status-routes.ts';

/** What the public routes need of the API beyond a request's own parts: the pings' writer and limiter. */
export interface PublicRouteParts {
  pings: PingRouteOptions;
}

/**
 * Every route answered without a key, outside the base path, before authentication (the routes
 * of each feature in a file of their own, joined here; docs/contract.md §1, "Public routes"): the
 * pings of docs/heartbeats.md and the status pages of docs/status-pages.md.
 */
export function publicRoutes(parts: PublicRouteParts): PublicRoute[] {
  return [...pingRoutes(parts.pings), ...STATUS_ROUTES];
}
