/** The response headers of the OpenAPI description: what each means and which answers carry it. */
import type { HeaderObject, Reference } from './types.ts';

export const HEADERS = {
  'X-Request-Id': {
    description:
      "Identifies the request in the server's logs: the caller's own X-Request-Id when it is 1-64 characters of [A-Za-z0-9._-], else a new UUID.",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
  },
  'RateLimit-Policy': {
    description:
      'The quota (draft-ietf-httpapi-ratelimit-headers-11): `"key";q=<requests>;w=<window seconds>`, or `"failed-auth";...` on a 429 for too many failed authentications from one address.',
    schema: { type: 'string', pattern: '^"[a-z-]+";q=[0-9]+;w=[0-9]+$', examples: ['"key";q=120;w=60'] },
  },
  RateLimit: {
    description: 'The state of the quota: `"key";r=<remaining>;t=<seconds until the window resets>`.',
    schema: { type: 'string', pattern: '^"[a-z-]+";r=[0-9]+;t=[0-9]+$', examples: ['"key";r=119;t=60'] },
  },
  'RateLimit-Limit': {
    description: 'Older form, for the clients that read it: requests allowed per window.',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'Older form: requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Older form: seconds until the window resets.',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description:
      'Seconds to wait before trying again (equal to `t` of RateLimit). A refused request was not executed, so repeating it after this delay is safe, also for a create.',
    schema: { type: 'integer', minimum: 0 },
  },
  Link: {
    description:
      'When more follow the page: on a list page given with `limit`, `<path?limit=N&after_id=M>; rel="next"`; on a results page, `<path?id=I&limit=N&before_id=M>; rel="next"`. A path, to resolve against the request URL.',
    schema: {
      type: 'string',
      pattern: '^<[^>]+>; rel="next"$',
      examples: ['</v1/devices?limit=50&after_id=50>; rel="next"'],
    },
  },
  'WWW-Authenticate': {
    description:
      'The authentication scheme expected (RFC 6750): `Bearer realm="monitoring"` on a 401; on a 403 insufficient_scope also the error and the scope needed (§3.1).',
    schema: {
      type: 'string',
      pattern: '^Bearer realm="monitoring"(, error="insufficient_scope", scope="(read|write)")?$',
    },
  },
  Allow: {
    description: 'The methods the path accepts.',
    schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$', examples: ['GET'] },
  },
} satisfies Record<string, HeaderObject>;

export type HeaderName = keyof typeof HEADERS;
export const RATE_LIMIT_HEADERS: HeaderName[] = [
  'RateLimit-Policy',
  'RateLimit',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

/**
 * The shared header definitions. All but Link are present on every response that lists them as
 * required, so their components say `required: true` and those responses refer to them; where a
 * header may be absent it is spelled out inline without `required` (a Reference Object cannot
 * override it).
 */
export function componentHeaders(): Record<string, HeaderObject> {
  return Object.fromEntries(
    Object.entries(HEADERS).map(([name, header]) => [name, name === 'Link' ? header : { ...header, required: true }]),
  );
}

export const headerRef = (name: HeaderName): Reference => ({ $ref: `#/components/headers/${name}` });

/** Response headers by name: the required ones by reference, the optional ones inline. */
export function headers(
  required: readonly HeaderName[],
  optional: readonly HeaderName[] = [],
): Record<string, HeaderObject | Reference> {
  const result: Record<string, HeaderObject | Reference> = {};
  for (const name of required) {
    if (name === 'Link') throw new Error('Link is never required');
    result[name] = headerRef(name);
  }
  for (const name of optional) result[name] = name === 'Link' ? headerRef(name) : { ...HEADERS[name] };
  return result;
}

/** Every answer past the rate limit (docs/contract.md §2 step 3) carries the quota. */
export const AFTER_RATE_LIMIT = (): Record<string, HeaderObject | Reference> =>
  headers(['X-Request-Id', ...RATE_LIMIT_HEADERS]);
