import type { ApiRequest, ParsedUrl } from '../http/api-request.ts';
import type { ApiResponse } from '../http/api-response.ts';
import { errors } from '../http/errors.ts';
import { createRouteTable } from '../routes/route-table.ts';
import type { StatusAnswers } from '../status-pages/status-answers.ts';
import type { StatusKeeper } from '../status-pages/status-keeper.ts';
import type { Store } from '../store/store.ts';
import { textResponse, type PublicRoute } from './public-route.ts';

export interface PublicDispatcher {
  /**
   * Whether a path is a public route's whatever the host (`/ping`, `/ping/...`, `/status/...`), so
   * that embedding adapters hand it over.
   */
  owns(pathname: string): boolean;
  /**
   * The public route's answer to a request, or undefined when none takes it (the API's own answer
   * follows: its routes, or 404 unknown_route). Runs before authentication: no key is asked.
   * `matched` is told what the request log shows for the path once it is known, before the route
   * runs or refuses (so an error thrown there is logged by it too): the route's pattern, or a text
   * route's first segment when no route takes the path; never the path itself, since a ping's
   * path holds its heartbeat's token. An answer the route gives without waiting (PublicHandler) is
   * returned as it is; a refusal before the route runs is thrown.
   */
  dispatch(
    request: ApiRequest,
    url: ParsedUrl,
    now: number,
    clientIp: string | null,
    matched: (pattern: string) => void,
  ): ApiResponse | undefined | Promise<ApiResponse | undefined>;
}

const PORT = /:\d*$/;

/** The host a request is for: its absolute URL's, else its `Host` field; lower-case, no port, no final dot. */
function hostOf(request: ApiRequest, url: ParsedUrl): string | null {
  let host = url.origin === '' ? request.headers.get('host') : url.origin.slice(url.origin.indexOf('://') + 3);
  if (host === null || host === '' || host.startsWith('[')) return null;
  host = host.replace(PORT, '').toLowerCase();
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** A path's first segment: `/ping` of `/ping/x/start`. */
function firstSegment(path: string): string {
  const slash = path.indexOf('/', 1);
  return slash < 0 ? path : path.slice(0, slash);
}

/**
 * The public routes as one dispatcher over a route table (core/routes/route-table.ts). `/` cannot
 * be a pattern of the table (it refuses empty segments), so a route at `/` is matched here. One
 * trailing slash is ignored, as on the API's routes.
 */
export function createPublicDispatcher(
  routes: readonly PublicRoute[],
  parts: { store: Store; statusAnswers: StatusAnswers; statusKeeper: StatusKeeper },
): PublicDispatcher {
  const resolve = createRouteTable(routes.filter((route) => route.path !== '/'));
  const root = routes.find((route) => route.path === '/' && route.method === 'GET')?.value;
  const pathed = routes.filter((r) => !r.value.byHost && r.path !== '/');
  // The first segments of the text routes (`/ping`): theirs whole, refusals included.
  const textSegments = new Set(pathed.filter((r) => r.value.text).map((r) => firstSegment(r.path)));
  // `/status/` and the like: the first segment of every route not served by hostname alone.
  const prefixes = [...new Set(pathed.map((r) => `${firstSegment(r.path)}/`))];

  return {
    owns: (pathname) => textSegments.has(pathname) || prefixes.some((prefix) => pathname.startsWith(prefix)),
    dispatch(request, url, now, clientIp, matched) {
      let path = url.pathname;
      if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
      let endpoint;
      let params: Readonly<Record<string, string>> = {};
      if (path === '/') {
        if (request.method !== 'GET' || root === undefined) return undefined;
        matched(path);
        endpoint = root;
      } else {
        const resolved = resolve(request.method, path);
        if (resolved.kind === 'unknown') {
          const segment = firstSegment(path);
          if (!textSegments.has(segment)) return undefined;
          matched(segment);
          return textResponse(404, 'not found');
        }
        if (resolved.kind === 'method_not_allowed') {
          const route = routes.find((r) => r.path === resolved.pattern)!;
          // A hostname's path asked otherwise is the API's to answer; `/status/...` is ours.
          if (route.value.byHost) return undefined;
          matched(resolved.pattern);
          if (!route.value.text) throw errors.methodNotAllowed(resolved.allow);
          return textResponse(405, 'method not allowed', { allow: resolved.allow.join(', ') });
        }
        matched(resolved.pattern);
        endpoint = resolved.value;
        params = resolved.params;
      }
      return endpoint.handler({
        request,
        url,
        params,
        host: endpoint.byHost ? hostOf(request, url) : null,
        now,
        clientIp,
        store: parts.store,
        statusAnswers: parts.statusAnswers,
        statusKeeper: parts.statusKeeper,
      });
    },
  };
}
