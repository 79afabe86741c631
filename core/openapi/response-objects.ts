/**
 * The response objects the OpenAPI document shares between operations: error answers with their
 * example codes, the protocol-level answers every operation can meet, success envelopes.
 */
import type { ApiError } from '../http/api-error.ts';
import { errors } from '../http/errors.ts';
import { protocolErrors } from '../http/protocol-errors.ts';
import { DEFAULTS } from '../options.ts';
import type { RateLimitDecision, RateLimitPolicy } from '../store/rate-limiter.ts';
import { ROUTES } from '../routes/router.ts';
import { errorEnvelopeFor, exampleBody } from './response-schemas.ts';
import { ref } from './schema-helpers.ts';
import { AFTER_RATE_LIMIT, headers, RATE_LIMIT_HEADERS } from './headers.ts';
import type { HeaderObject, Reference, ResponseObject } from './types.ts';

export const JSON_MEDIA = 'application/json';

export function errorResponseObject(
  description: string,
  examples: readonly ApiError[],
  headerSet: Record<string, HeaderObject | Reference>,
): ResponseObject {
  const codes = [...new Set(examples.map((error) => error.code))];
  return {
    description,
    headers: headerSet,
    content: {
      [JSON_MEDIA]: {
        schema: errorEnvelopeFor(codes),
        examples: Object.fromEntries(
          examples.map((error) => [error.code, { summary: error.message, value: exampleBody(error) }]),
        ),
      },
    },
  };
}

/** A spent quota, for the examples of answers that carry one: only their codes and messages are shown. */
export const spentQuota = (policy: RateLimitPolicy): RateLimitDecision => ({
  allowed: false,
  limit: policy.limit,
  remaining: 0,
  resetSeconds: policy.windowSeconds,
});

export const sampleDetails = () => [
  { field: 'port', code: 'out_of_range' as const, message: 'port must be an integer from 1 to 65535.' },
];

/** The unknown-route codes: `unknown_<resource>_route` for each resource, and `unknown_route`. */
export function unknownRouteErrors(): ApiError[] {
  const resources = [...new Set(ROUTES.map((route) => route.path.split('/')[1]!))];
  return [...resources.map((resource) => errors.unknownRoute(resource)), errors.unknownRoute(null)];
}

export function sharedResponses(): Record<string, ResponseObject> {
  return {
    Unauthorized: errorResponseObject(
      'The Authorization header is missing, or its key is unknown, revoked or expired.',
      [errors.missingApiKey(), errors.invalidApiKey()],
      headers(['X-Request-Id', 'WWW-Authenticate']),
    ),
    Forbidden: errorResponseObject(
      'The key may not be used from this address, or lacks the scope this operation needs. Both answer an authenticated key, so both show its quota; ip_not_allowed does not spend it (the address is judged before the quota). insufficient_scope also carries `WWW-Authenticate` naming the scope needed (RFC 6750 §3.1).',
      [errors.ipNotAllowed(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit), errors.insufficientScope('write')],
      { ...AFTER_RATE_LIMIT(), ...headers([], ['WWW-Authenticate']) },
    ),
    ForbiddenAddress: errorResponseObject(
      "The key may not be used from this address. The answer shows the key's quota without spending it.",
      [errors.ipNotAllowed(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit)],
      AFTER_RATE_LIMIT(),
    ),
    RateLimited: errorResponseObject(
      'Too many requests with this key, or too many failed authentications from this address. The request was not executed: repeat it after Retry-After seconds.',
      [
        errors.rateLimited(spentQuota(DEFAULTS.rateLimit), DEFAULTS.rateLimit),
        errors.authThrottled(spentQuota(DEFAULTS.authFailureLimit), DEFAULTS.authFailureLimit),
      ],
      headers(
        ['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After'],
        ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
      ),
    ),
    PayloadTooLarge: errorResponseObject(
      `The body is larger than the server's limit (${DEFAULTS.bodyLimit} bytes by default).`,
      [errors.payloadTooLarge(DEFAULTS.bodyLimit)],
      AFTER_RATE_LIMIT(),
    ),
    ServerError: errorResponseObject(
      'The server failed; nothing internal is disclosed. missing_table: the operator has not run the migrations.',
      [errors.serverError(), errors.missingTable()],
      headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
    ),
    UnknownRoute: errorResponseObject(
      'No route of this API has this path: `unknown_<resource>_route` when the first segment names a resource, else unknown_route. On a documented operation: the server URL does not end in the base path the API is mounted at, or the server is of another version.',
      unknownRouteErrors(),
      headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
    ),
    MethodNotAllowed: errorResponseObject(
      'The path exists but not with this method; Allow lists the methods it accepts. On a documented operation: the server at this URL does not serve it with this method (another version, or a proxy that rewrote the method).',
      [errors.methodNotAllowed(['GET'])],
      headers(['X-Request-Id', 'Allow', ...RATE_LIMIT_HEADERS]),
    ),
    RequestTimeout: errorResponseObject(
      `${PROTOCOL} the request line, headers or body did not arrive in time.`,
      [protocolErrors.requestTimeout()],
      headers(['X-Request-Id']),
    ),
    ExpectationFailed: errorResponseObject(
      `${PROTOCOL} an Expect header other than 100-continue.`,
      [protocolErrors.expectationFailed()],
      headers(['X-Request-Id']),
    ),
    HeadersTooLarge: errorResponseObject(
      `${PROTOCOL} the request line or headers are over 16 KiB.`,
      [protocolErrors.headersTooLarge()],
      headers(['X-Request-Id']),
    ),
  };
}

/**
 * The 400 of a request that matches no operation: the standalone server's protocol answers. Not a
 * component: an operation's 400 lists its own input errors beside these (badRequest), so nothing
 * OpenAPI defines would reference it, and a component referenced from an extension alone is an
 * unused one to linters and generators.
 */
export function unmatchedBadRequest(): ResponseObject {
  return errorResponseObject(
    `${PROTOCOL} malformed HTTP, an HTTP/1.1 request without Host, or CONNECT.`,
    [protocolErrors.malformed(), protocolErrors.missingHost(), protocolErrors.connect()],
    headers(['X-Request-Id']),
  );
}

/** Said of the answers the standalone server gives before the API judges the request. */
export const PROTOCOL =
  "Answered by the standalone server before the request reaches the API, and the connection closed (a host's own server answers these its own way):";

/** The protocol answers a request for any operation can meet, by status, besides the operation's own. */
export const PROTOCOL_BAD_REQUEST = () => [protocolErrors.malformed(), protocolErrors.missingHost()];

/**
 * The answers every operation can meet besides its own: a 404 or 405 when the server at this URL
 * does not serve the operation, and the protocol-level answers of the standalone server.
 */
export function everyOperation(): Record<string, Reference> {
  return {
    405: responseRef('MethodNotAllowed'),
    408: responseRef('RequestTimeout'),
    417: responseRef('ExpectationFailed'),
    431: responseRef('HeadersTooLarge'),
  };
}

/** An operation's 400: its own input errors, and the protocol's (which carry no quota headers). */
export function badRequest(description: string, own: readonly ApiError[]): ResponseObject {
  return errorResponseObject(
    `${description} Or, before the API sees the request: malformed HTTP or no Host header (bad_request, from the standalone server).`,
    [...own, ...PROTOCOL_BAD_REQUEST()],
    headers(['X-Request-Id'], RATE_LIMIT_HEADERS),
  );
}

export const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });

export function success(
  description: string,
  envelope: string,
  extraHeaders: Record<string, HeaderObject | Reference> = {},
): ResponseObject {
  return {
    description,
    headers: { ...AFTER_RATE_LIMIT(), ...extraHeaders },
    content: { [JSON_MEDIA]: { schema: ref(envelope) } },
  };
}
