import type { PublicRoute } from './public-route.ts';
import { STATUS_ROUTES } from './status-routes.ts';

/**
 * Every route answered without a key, outside the base path, before authentication (the routes
 * of each feature in a file of their own, joined here): docs/status-pages.md, "Public routes".
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [...STATUS_ROUTES];
