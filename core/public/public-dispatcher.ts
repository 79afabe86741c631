import type { ApiRequest, ParsedUrl } from '../http/api-request.ts';
import type { ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { createRouteTable } from '../routes/route-table.ts';
import type { StatusAnswers } from '../status-pages/status-answers.ts';
import type { Store } from '../store/store.ts';
import type { PublicRoute } from './public-route.ts';

export interface PublicDispatcher {
  /** Whether a path is a public route's whatever the host (`/status/...`), so that embedding adapters hand it over. */
  owns(pathname: string): boolean;
  /**
   * The public route's answer to a request, or undefined when none takes it (the API's own answer
   * follows: its routes, or 404 unknown_route). Runs before authentication: no key is asked.
   */
  dispatch(request: ApiRequest, url: ParsedUrl, now: number): Promise<ApiResponse | undefined>;
}

const PORT = /:\d*$/;

/** The host a request is for: its absolute URL's, else its `Host` field; lower-case, no port, no final dot. */
function hostOf(request: ApiRequest, url: ParsedUrl): string | null {
  let host = url.origin === '' ? request.headers.get('host') : url.origin.slice(url.origin.indexOf('://') + 3);
  if (host === null || host === '' || host.startsWith('[')) return null;
  host = host.replace(PORT, '').toLowerCase();
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * The public routes as one dispatcher over a route table (core/routes/route-table.ts). `/` cannot
 * be a pattern of the table (it refuses empty segments), so a route at `/` is matched here.
 */
export function createPublicDispatcher(
  routes: readonly PublicRoute[],
  parts: { store: Store; statusAnswers: StatusAnswers },
): PublicDispatcher {
  const resolve = createRouteTable(routes.filter((route) => route.path !== '/'));
  const root = routes.find((route) => route.path === '/' && route.method === 'GET')?.value;
  // `/status/` and the like: the first segment of every route not served by hostname alone.
  const prefixes = [
    ...new Set(routes.filter((r) => !r.value.byHost && r.path !== '/').map((r) => `/${r.path.split('/')[1]}/`)),
  ];

  return {
    owns: (pathname) => prefixes.some((prefix) => pathname.startsWith(prefix)),
    async dispatch(request, url, now) {
      let path = url.pathname;
      if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
      let endpoint;
      let params: Readonly<Record<string, string>> = {};
      if (path === '/') {
        if (request.method !== 'GET' || root === undefined) return undefined;
        endpoint = root;
      } else {
        const resolved = await resolve(request.method, path);
        if (resolved.kind === 'unknown') return undefined;
        if (resolved.kind === 'method_not_allowed') {
          // A hostname's path asked otherwise is the API's to answer; `/status/...` is ours.
          if (routes.some((r) => r.path === resolved.pattern && r.value.byHost)) return undefined;
          throw errors.methodNotAllowed(resolved.allow);
        }
        endpoint = resolved.value;
        params = resolved.params;
      }
      return endpoint.handler({ request, url, params, host: hostOf(request, url), now, ...parts });
    },
  };
}
