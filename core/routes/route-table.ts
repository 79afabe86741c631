import { IttyRouter } from 'itty-router';

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
 * empty. A path is matched as it is written, never through a URL parser that
 * would resolve `.`/`..` (also as `%2e`) and read `\` as `/`: `/v1/x/../devices` would otherwise
 * be served as `/v1/devices`, a path that a proxy's rules in front of us never saw (found by
 * test/hardening/fuzz.test.ts). Every route's fixed segments and every parameter the routes take
 * (ids, slugs, UUID tokens, signals) are of this form.
 */
const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

function plainPath(path: string): boolean {
  if (!path.startsWith('/') || path.length > 512) return false;
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) if (!SEGMENT.test(segments[i]!)) return false;
  return true;
}

/**
 * Each pattern as itty-router compiles it (its grammar: `:name`, `:name?`), tested against a path
 * here, synchronously, rather than through the router's own `fetch`, which parses a URL and awaits
 * each route in turn: the table runs for every request, the status pages' and pings' included.
 */
function compiled(patterns: readonly string[]): RegExp[] {
  const router = IttyRouter();
  for (const pattern of patterns) router.all(pattern);
  return router.routes.map(([, regex]) => regex);
}

/** The parameters `path` gives the pattern `regex` was compiled from, or undefined when it does not match. */
function matchPath(regex: RegExp, path: string): Record<string, string> | undefined {
  const match = regex.exec(path);
  return match === null ? undefined : { ...match.groups };
}

/**
 * A route table. A path resolves to the first route of its pattern and the method asked, in the
 * order given, else to a 405 naming the methods its pattern takes (fixed patterns tried before
 * patterns with parameters), else to unknown. Paths without parameters are resolved once and
 * remembered, at most 256 method and path pairs (runtimes other than Node accept any method name,
 * so requests could otherwise grow the map). A path with parameters is matched against the
 * patterns' expressions (no URL parsed), and the last 1,024 such paths are remembered too, oldest
 * forgotten first: a status page read by many is resolved once, and a stream of ping tokens, each
 * new, costs a map write each and holds at most 1,024 paths of at most 512 characters.
 */
export function createRouteTable<T>(routes: readonly TableRoute<T>[]): (method: string, path: string) => Resolution<T> {
  const regexes = compiled(routes.map((route) => route.path));
  const table = routes.map((route, i) => ({ route, regex: regexes[i]! }));
  const allowed = new Map<string, Method[]>();
  for (const { method, path } of routes) allowed.set(path, [...(allowed.get(path) ?? []), method]);
  const patterns = [...allowed.keys()];
  const ordered = [...patterns.filter((p) => !p.includes(':')), ...patterns.filter((p) => p.includes(':'))];
  const orderedRegexes = compiled(ordered);
  const refusals = ordered.map((pattern, i): { regex: RegExp; refusal: Resolution<T> } => ({
    regex: orderedRegexes[i]!,
    refusal: { kind: 'method_not_allowed', pattern, allow: allowed.get(pattern)! },
  }));
  const unknown: Resolution<T> = { kind: 'unknown' };
  const known = new Map<string, Resolution<T>>();
  const recent = new Map<string, Resolution<T>>();

  function match(method: string, path: string): Resolution<T> {
    for (const { route, regex } of table) {
      if (route.method !== method) continue;
      const params = matchPath(regex, path);
      if (params !== undefined) return { kind: 'route', value: route.value, pattern: route.path, params };
    }
    for (const { regex, refusal } of refusals) if (regex.test(path)) return refusal;
    return unknown;
  }

  return (method, path) => {
    // Only plain paths are remembered, so one found here needs no second look.
    const id = `${method} ${path}`;
    const remembered = known.get(id) ?? recent.get(id);
    if (remembered !== undefined) return remembered;
    if (!plainPath(path)) return unknown;
    const resolved = match(method, path);
    if (resolved.kind === 'unknown') return resolved;
    if (!resolved.pattern.includes(':')) {
      if (known.size < 256) known.set(id, resolved);
    } else {
      if (recent.size >= 1_024) recent.delete(recent.keys().next().value!);
      recent.set(id, resolved);
    }
    return resolved;
  };
}
