import type { ApiRequest, ParsedUrl } from '../http/api-request.ts';
import type { ApiResponse } from '../http/api-response.ts';
import { createRouteTable, type Method } from '../routes/route-table.ts';

/**
 * A request on a public route (outside the base path, without a key): the request, the path's
 * parameters, and what the pipeline knows of it.
 */
export interface PublicCall {
  readonly request: ApiRequest;
  readonly url: ParsedUrl;
  readonly params: Readonly<Record<string, string>>;
  /** The clock's reading when the request arrived, ms since the epoch. */
  readonly now: number;
  /** The client's address, after `trustProxy`. */
  readonly clientIp: string | null;
}

export type PublicHandler = (call: PublicCall) => Promise<ApiResponse>;

/** One public route: a method, a path pattern with parameters (`/ping/:token/:signal?`), its handler. */
export interface PublicRoute {
  readonly method: Method;
  readonly path: string;
  readonly handler: PublicHandler;
}

/** Plain text answers, as the public routes give (Healthchecks' ping API answers in text). */
export function textResponse(status: number, text: string, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: text };
}

/** The public routes of the API, as a table: what `owns` and `answer` are asked. */
export interface PublicRoutes {
  /** Whether a path is under one of the table's first segments (`/ping`, `/ping/...`). */
  owns(pathname: string): boolean;
  /**
   * The route's answer, and the pattern its path matched (for logs, which must not show a route's
   * parameters: a ping's token is its heartbeat's secret). A path under a first segment of the
   * table that no route takes is 404, another method 405.
   */
  answer(method: string, path: string, call: Omit<PublicCall, 'params'>): Promise<PublicAnswer>;
}

export interface PublicAnswer {
  response: ApiResponse;
  pattern: string | undefined;
}

/**
 * The table of routes answered outside the base path, before authentication (docs/contract.md
 * §1, "Public routes"): the pings of docs/heartbeats.md, and whatever public pages come after
 * them, each a row. One trailing slash is ignored, as on the API's routes.
 */
export function createPublicRoutes(routes: readonly PublicRoute[]): PublicRoutes {
  const resolve = createRouteTable(routes.map((route) => ({ method: route.method, path: route.path, value: route })));
  const prefixes = new Set(routes.map((route) => `/${route.path.split('/')[1]!}`));
  const trimmed = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
  return {
    owns(pathname) {
      const slash = pathname.indexOf('/', 1);
      return prefixes.has(slash < 0 ? pathname : pathname.slice(0, slash));
    },
    async answer(method, path, call) {
      const resolved = await resolve(method, trimmed(path));
      if (resolved.kind === 'unknown') return { response: textResponse(404, 'not found'), pattern: undefined };
      const { pattern } = resolved;
      if (resolved.kind === 'method_not_allowed') {
        return { response: textResponse(405, 'method not allowed', { allow: resolved.allow.join(', ') }), pattern };
      }
      return { response: await resolved.value.handler({ ...call, params: resolved.params }), pattern };
    },
  };
}
