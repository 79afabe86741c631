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
 * empty. A path is matched segment by segment as it is written, never through a URL parser that
 * would resolve `.`/`..` (also as `%2e`) and read `\` as `/`: `/v1/x/../devices` would otherwise
 * be served as `/v1/devices`, a path that a proxy's rules in front of us never saw (found by
 * test/hardening/fuzz.test.ts). Every route's fixed segments and every parameter the routes take
 * (ids, slugs, UUID tokens, signals) are of this form.
 */
const SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

/** The segments of a plain path (`/a/b`: `a`, `b`), or undefined when one is not plain. */
function plainSegments(path: string): string[] | undefined {
  if (!path.startsWith('/') || path.length > 512) return undefined;
  const segments = path.slice(1).split('/');
  for (const segment of segments) if (!SEGMENT.test(segment)) return undefined;
  return segments;
}

/** A pattern's segment: a fixed name, or a parameter (`:slug`; `:signal?` may be left out at the end). */
type PatternSegment = { readonly fixed: string } | { readonly param: string; readonly optional: boolean };

function compile(pattern: string): PatternSegment[] {
  return pattern
    .slice(1)
    .split('/')
    .map((segment) =>
      segment.startsWith(':')
        ? { param: segment.slice(1).replace(/\?$/, ''), optional: segment.endsWith('?') }
        : { fixed: segment },
    );
}

/** The parameters `segments` give `pattern`, or undefined when it does not match them. */
function matchSegments(
  pattern: readonly PatternSegment[],
  segments: readonly string[],
): Record<string, string> | undefined {
  if (segments.length > pattern.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    const segment = segments[i];
    if (segment === undefined) {
      if ('param' in part && part.optional) continue;
      return undefined;
    }
    if ('fixed' in part) {
      if (part.fixed !== segment) return undefined;
    } else params[part.param] = segment;
  }
  return params;
}

/**
 * A route table. A path resolves to the first route of its pattern and the method asked, in the
 * order given, else to a 405 naming the methods its pattern takes (fixed patterns tried before
 * patterns with parameters), else to unknown. Paths without parameters are resolved once and
 * remembered, at most 256 method and path pairs (runtimes other than Node accept any method name,
 * so requests could otherwise grow the map); a path with parameters is matched each time, a
 * comparison of its segments with the patterns' (no regular expression, no URL parsed).
 */
export function createRouteTable<T>(routes: readonly TableRoute<T>[]): (method: string, path: string) => Resolution<T> {
  const compiled = routes.map((route) => ({ route, segments: compile(route.path) }));
  const allowed = new Map<string, Method[]>();
  for (const { method, path } of routes) allowed.set(path, [...(allowed.get(path) ?? []), method]);
  const patterns = [...allowed.keys()];
  const refusals = [...patterns.filter((p) => !p.includes(':')), ...patterns.filter((p) => p.includes(':'))].map(
    (pattern): { segments: PatternSegment[]; refusal: Resolution<T> } => ({
      segments: compile(pattern),
      refusal: { kind: 'method_not_allowed', pattern, allow: allowed.get(pattern)! },
    }),
  );
  const unknown: Resolution<T> = { kind: 'unknown' };
  const known = new Map<string, Resolution<T>>();

  function match(method: string, segments: readonly string[]): Resolution<T> {
    for (const { route, segments: pattern } of compiled) {
      if (route.method !== method) continue;
      const params = matchSegments(pattern, segments);
      if (params !== undefined) return { kind: 'route', value: route.value, pattern: route.path, params };
    }
    for (const { segments: pattern, refusal } of refusals)
      if (matchSegments(pattern, segments) !== undefined) return refusal;
    return unknown;
  }

  return (method, path) => {
    // Only plain paths are remembered, so one found here needs no second look.
    const id = `${method} ${path}`;
    const remembered = known.get(id);
    if (remembered !== undefined) return remembered;
    const segments = plainSegments(path);
    if (segments === undefined) return unknown;
    const resolved = match(method, segments);
    if (resolved.kind !== 'unknown' && !resolved.pattern.includes(':') && known.size < 256) known.set(id, resolved);
    return resolved;
  };
}
