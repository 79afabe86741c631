import { Router } from 'itty-router';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';

/**
 * One entry of a route table: a method, a path pattern (`/status/:slug`, `/ping/:token/:signal?`)
 * and what it leads to.
 */
export interface TableRoute<T> {
  readonly method: Method;
  readonly path: string;
  readonly value: T;
}

/** What a path resolves to: the matched route's value with the path's parameters, or the methods a known path takes. */
export type Resolution<T> =
  | {
      readonly kind: 'route';
      readonly value: T;
      readonly pattern: string;
      readonly params: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'method_not_allowed'; readonly pattern: string; readonly allow: readonly Method[] }
  | { readonly kind: 'unknown' };

/**
 * Segments a path may have to reach the matcher: no `.` or `..`, no percent-escape, no `\`, none
 * empty. itty-router reads the path through the URL parser, which resolves `.`/`..` (also as
 * `%2e`) and reads `\` as `/`: `/v1/x/../devices` would otherwise be served as `/v1/devices`, a
 * path that a proxy's rules in front of us never saw (found by test/hardening/fuzz.test.ts). Every
 * route's fixed segments and every parameter the routes take (ids, slugs, UUID tokens, signals)
 * are of this form.
 */
const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

function plainPath(path: string): boolean {
  if (!path.startsWith('/') || path.length > 512) return false;
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) if (!SEGMENT.test(segments[i]!)) return false;
  return true;
}

/**
 * A route table matched by itty-router. A path resolves to its route for the method asked, else to
 * a 405 naming the methods its pattern takes (fixed patterns tried before patterns with
 * parameters), else to unknown. Paths without parameters are resolved once and remembered, at
 * most 256 method and path pairs (runtimes other than Node accept any method name, so requests
 * could otherwise grow the map); a path with parameters is matched each time.
 */
export function createRouteTable<T>(
  routes: readonly TableRoute<T>[],
): (method: string, path: string) => Promise<Resolution<T>> {
  type Routed = { method: string; url: string; params?: Record<string, string> };
  const router = Router<Routed, [], Resolution<T>>();
  const allowed = new Map<string, Method[]>();
  for (const route of routes) {
    const { value, path: pattern } = route;
    router.all(pattern, (request) =>
      request.method === route.method ? { kind: 'route', value, pattern, params: { ...request.params } } : undefined,
    );
    allowed.set(pattern, [...(allowed.get(pattern) ?? []), route.method]);
  }
  const patterns = [...allowed.keys()];
  for (const pattern of [...patterns.filter((p) => !p.includes(':')), ...patterns.filter((p) => p.includes(':'))]) {
    const refusal: Resolution<T> = { kind: 'method_not_allowed', pattern, allow: allowed.get(pattern)! };
    router.all(pattern, () => refusal);
  }
  const unknown: Resolution<T> = { kind: 'unknown' };
  const known = new Map<string, Resolution<T>>();

  return async (method, path) => {
    // Only plain paths are remembered, so one found here needs no second look.
    const id = `${method} ${path}`;
    const remembered = known.get(id);
    if (remembered !== undefined) return remembered;
    if (!plainPath(path)) return unknown;
    const resolved = (await router.fetch({ method, url: `http://api${path}` })) ?? unknown;
    if (resolved.kind !== 'unknown' && !resolved.pattern.includes(':') && known.size < 256) known.set(id, resolved);
    return resolved;
  };
}
