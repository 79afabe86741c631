import { errors } from '../http/errors.ts';
import type { ApiResponse } from '../http/api-response.ts';
import type { Scope } from '../records/index.ts';
import { getAvailability } from './availability.ts';
import { blacklistMonitorRoutes as monitors } from './blacklist-monitors.ts';
import { channelRoutes as channels, testChannel } from './channels.ts';
import type { RouteContext } from './route-context.ts';
import { deviceRoutes as devices } from './devices.ts';
import { acknowledgeIncident, listIncidents } from './incidents.ts';
import { heartbeatRoutes as heartbeats } from './heartbeats.ts';
import { getListings } from './listings.ts';
import { listLocations } from './locations.ts';
import { getMe } from './me.ts';
import { checkRoute } from './check-route.ts';
import { maintenanceWindowRoutes as windows } from './maintenance-windows.ts';
import { noticeRoutes as notices } from './notices.ts';
import { statusPageRoutes as pages } from './status-pages.ts';
import { getResponseTimes } from './response-times.ts';
import { newestFirstRoute, resultsRoute } from './results-routes.ts';
import { createRouteTable, type Method } from './route-table.ts';
import { testWebhook, webhookRoutes as webhooks } from './webhooks.ts';

type Handler = (call: RouteContext) => Promise<ApiResponse>;

interface Route {
  method: Method;
  path: string;
  /** null: any valid key may call it (`/me`, docs/contract.md §1). */
  scope: Scope | null;
  handler: Handler;
}

/** The v1 API (docs/contract.md §1) and the engine's read routes (docs/engine.md), relative to the base path. */
export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/me', scope: null, handler: getMe },
  { method: 'GET', path: '/devices', scope: 'read', handler: devices.list },
  { method: 'POST', path: '/devices/create', scope: 'write', handler: devices.create },
  { method: 'GET', path: '/devices/get', scope: 'read', handler: devices.get },
  { method: 'PATCH', path: '/devices/update', scope: 'write', handler: devices.update },
  { method: 'DELETE', path: '/devices/delete', scope: 'write', handler: devices.remove },
  { method: 'GET', path: '/devices/results', scope: 'read', handler: resultsRoute('device', 'device_not_found') },
  { method: 'POST', path: '/devices/check', scope: 'write', handler: checkRoute('device', 'device_not_found') },
  { method: 'GET', path: '/blacklist-monitors', scope: 'read', handler: monitors.list },
  { method: 'POST', path: '/blacklist-monitors/create', scope: 'write', handler: monitors.create },
  { method: 'GET', path: '/blacklist-monitors/get', scope: 'read', handler: monitors.get },
  { method: 'PATCH', path: '/blacklist-monitors/update', scope: 'write', handler: monitors.update },
  { method: 'DELETE', path: '/blacklist-monitors/delete', scope: 'write', handler: monitors.remove },
  {
    method: 'GET',
    path: '/blacklist-monitors/results',
    scope: 'read',
    handler: resultsRoute('blacklist_monitor', 'blacklist_monitor_not_found'),
  },
  {
    method: 'POST',
    path: '/blacklist-monitors/check',
    scope: 'write',
    handler: checkRoute('blacklist_monitor', 'blacklist_monitor_not_found'),
  },
  { method: 'GET', path: '/webhooks', scope: 'read', handler: webhooks.list },
  { method: 'POST', path: '/webhooks/create', scope: 'write', handler: webhooks.create },
  { method: 'GET', path: '/webhooks/get', scope: 'read', handler: webhooks.get },
  { method: 'PATCH', path: '/webhooks/update', scope: 'write', handler: webhooks.update },
  { method: 'DELETE', path: '/webhooks/delete', scope: 'write', handler: webhooks.remove },
  { method: 'GET', path: '/locations', scope: 'read', handler: listLocations },
  {
    method: 'GET',
    path: '/webhooks/deliveries',
    scope: 'read',
    handler: newestFirstRoute(
      (call, id, page) => call.store.listWebhookAttempts(call.key.user_id, id, page),
      'webhook_not_found',
    ),
  },
  { method: 'POST', path: '/webhooks/test', scope: 'write', handler: testWebhook },
  { method: 'GET', path: '/maintenance-windows', scope: 'read', handler: windows.list },
  { method: 'POST', path: '/maintenance-windows/create', scope: 'write', handler: windows.create },
  { method: 'GET', path: '/maintenance-windows/get', scope: 'read', handler: windows.get },
  { method: 'PATCH', path: '/maintenance-windows/update', scope: 'write', handler: windows.update },
  { method: 'DELETE', path: '/maintenance-windows/delete', scope: 'write', handler: windows.remove },
  { method: 'GET', path: '/devices/availability', scope: 'read', handler: getAvailability },
  { method: 'GET', path: '/devices/response-times', scope: 'read', handler: getResponseTimes },
  { method: 'GET', path: '/incidents', scope: 'read', handler: listIncidents },
  { method: 'POST', path: '/incidents/acknowledge', scope: 'write', handler: acknowledgeIncident },
  { method: 'GET', path: '/blacklist-monitors/listings', scope: 'read', handler: getListings },
  { method: 'GET', path: '/heartbeats', scope: 'read', handler: heartbeats.list },
  { method: 'POST', path: '/heartbeats/create', scope: 'write', handler: heartbeats.create },
  { method: 'GET', path: '/heartbeats/get', scope: 'read', handler: heartbeats.get },
  { method: 'PATCH', path: '/heartbeats/update', scope: 'write', handler: heartbeats.update },
  { method: 'DELETE', path: '/heartbeats/delete', scope: 'write', handler: heartbeats.remove },
  { method: 'GET', path: '/heartbeats/results', scope: 'read', handler: heartbeats.results },
  { method: 'GET', path: '/heartbeats/availability', scope: 'read', handler: heartbeats.availability },
  { method: 'GET', path: '/status-pages', scope: 'read', handler: pages.list },
  { method: 'POST', path: '/status-pages/create', scope: 'write', handler: pages.create },
  { method: 'GET', path: '/status-pages/get', scope: 'read', handler: pages.get },
  { method: 'PATCH', path: '/status-pages/update', scope: 'write', handler: pages.update },
  { method: 'DELETE', path: '/status-pages/delete', scope: 'write', handler: pages.remove },
  { method: 'GET', path: '/status-pages/notices', scope: 'read', handler: notices.list },
  { method: 'POST', path: '/status-pages/notices/create', scope: 'write', handler: notices.create },
  { method: 'GET', path: '/status-pages/notices/get', scope: 'read', handler: notices.get },
  { method: 'PATCH', path: '/status-pages/notices/update', scope: 'write', handler: notices.update },
  { method: 'DELETE', path: '/status-pages/notices/delete', scope: 'write', handler: notices.remove },
  { method: 'GET', path: '/channels', scope: 'read', handler: channels.list },
  { method: 'POST', path: '/channels/create', scope: 'write', handler: channels.create },
  { method: 'GET', path: '/channels/get', scope: 'read', handler: channels.get },
  { method: 'PATCH', path: '/channels/update', scope: 'write', handler: channels.update },
  { method: 'DELETE', path: '/channels/delete', scope: 'write', handler: channels.remove },
  { method: 'POST', path: '/channels/test', scope: 'write', handler: testChannel },
  {
    method: 'GET',
    path: '/channels/deliveries',
    scope: 'read',
    handler: newestFirstRoute(
      (call, id, page) => call.store.listChannelAttempts(call.key.user_id, id, page),
      'channel_not_found',
    ),
  },
];

const RESOURCES = new Set(ROUTES.map((route) => route.path.split('/')[1]!));
const SEGMENT = /^[a-z][a-z0-9-]{0,31}$/;

/** The 404 of docs/contract.md §2 step 4, named after the path's first segment when it is one of ours. */
export function unknownRoute(path: string): never {
  const first = path.split('/')[1] ?? '';
  throw errors.unknownRoute(SEGMENT.test(first) && RESOURCES.has(first) ? first : null);
}

/**
 * Dispatches an authenticated call by method and path (relative to the base path, one trailing
 * slash already removed): the route's handler after its scope check, 405 with `Allow` for a known
 * path and another method, 404 for anything else.
 */
export function createRouter(): (path: string, call: RouteContext) => Promise<ApiResponse> {
  const resolve = createRouteTable(ROUTES.map((route) => ({ method: route.method, path: route.path, value: route })));
  return async (path, call) => {
    // The route table also matches extra trailing slashes; the contract ignores one only.
    if (path === '' || path.endsWith('/')) unknownRoute(path);
    const resolved = resolve(call.request.method, path);
    if (resolved.kind === 'unknown') unknownRoute(path);
    if (resolved.kind === 'method_not_allowed') throw errors.methodNotAllowed(resolved.allow);
    const route = resolved.value;
    if (route.scope !== null && !call.key.scopes.includes(route.scope)) throw errors.insufficientScope(route.scope);
    return route.handler(call);
  };
}
