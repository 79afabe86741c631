import { Router } from 'itty-router';
import { errors } from '../http/api-error.ts';
import type { ApiResponse } from '../http/api-response.ts';
import type { Scope } from '../records.ts';
import { createBlacklistMonitor, deleteBlacklistMonitor, listBlacklistMonitors } from './blacklist-monitors.ts';
import type { Call } from './call.ts';
import { createDevice, deleteDevice, listDevices } from './devices.ts';
import { getMe } from './me.ts';

type Method = 'GET' | 'POST' | 'DELETE';
type Handler = (call: Call) => Promise<ApiResponse>;

interface Route {
  method: Method;
  path: string;
  /** null: any valid key may call it (`/me`, spec §4.1). */
  scope: Scope | null;
  handler: Handler;
}

/** The v1 API (spec §4.1), relative to the base path. */
export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/me', scope: null, handler: getMe },
  { method: 'GET', path: '/devices', scope: 'read', handler: listDevices },
  { method: 'POST', path: '/devices/create', scope: 'write', handler: createDevice },
  { method: 'DELETE', path: '/devices/delete', scope: 'write', handler: deleteDevice },
  { method: 'GET', path: '/blacklist-monitors', scope: 'read', handler: listBlacklistMonitors },
  { method: 'POST', path: '/blacklist-monitors/create', scope: 'write', handler: createBlacklistMonitor },
  { method: 'DELETE', path: '/blacklist-monitors/delete', scope: 'write', handler: deleteBlacklistMonitor },
];

const RESOURCES = new Set(ROUTES.map((route) => route.path.split('/')[1]!));
const SEGMENT = /^[a-z][a-z0-9-]{0,31}$/;

/** The 404 of contract §2 step 4, named after the path's first segment when it is one of ours. */
export function unknownRoute(path: string): never {
  const first = path.split('/')[1] ?? '';
  throw errors.unknownRoute(SEGMENT.test(first) && RESOURCES.has(first) ? first : null);
}

interface RoutedRequest {
  method: string;
  url: string;
}

/**
 * Dispatches an authenticated call by method and path (relative to the base path, one trailing
 * slash already removed): the route's handler after its scope check, 405 with `Allow` for a known
 * path and another method, 404 for anything else.
 */
export function createRouter(): (path: string, call: Call) => Promise<ApiResponse> {
  const router = Router<RoutedRequest, [Call]>();
  const allowed = new Map<string, Method[]>();
  for (const route of ROUTES) {
    const verb = route.method.toLowerCase() as 'get' | 'post' | 'delete';
    router[verb](route.path, (_request: RoutedRequest, call: Call) => {
      if (route.scope !== null && !call.key.scopes.includes(route.scope)) throw errors.insufficientScope(route.scope);
      return route.handler(call);
    });
    allowed.set(route.path, [...(allowed.get(route.path) ?? []), route.method]);
  }
  for (const [path, methods] of allowed) {
    router.all(path, () => {
      throw errors.methodNotAllowed(methods);
    });
  }
  return async (path, call) => {
    // itty-router also matches extra trailing slashes; the contract ignores one only.
    if (path === '' || path.endsWith('/')) unknownRoute(path);
    const response = (await router.fetch({ method: call.request.method, url: `http://api${path}` }, call)) as ApiResponse | undefined;
    return response ?? unknownRoute(path);
  };
}
