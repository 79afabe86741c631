import type { RateLimitDecision, RateLimitPolicy } from '../store/rate-limiter.ts';
import { ApiError, type ErrorDetail } from './api-error.ts';
import { authThrottleHeaders, keyQuotaHeaders } from './rate-limit-headers.ts';

/*
 * The answers the contract names (docs/contract.md §3's table), one factory each, so that a code
 * and its message are written once: the server throws them and the OpenAPI document lists them.
 * Each builds its error with every header field its answer needs, so that no adapter or server
 * has to recognise a status to complete it.
 */

export type NotFoundCode =
  | 'device_not_found'
  | 'blacklist_monitor_not_found'
  | 'webhook_not_found'
  | 'maintenance_window_not_found'
  | 'status_page_not_found'
  | 'notice_not_found'
  | 'heartbeat_not_found'
  | 'channel_not_found'
  | 'incident_not_found';
export type DuplicateCode = 'duplicate_device' | 'duplicate_blacklist_monitor' | 'duplicate_webhook';

const NOT_FOUND_MESSAGES: Record<NotFoundCode, string> = {
  device_not_found: 'No such device.',
  blacklist_monitor_not_found: 'No such blacklist monitor.',
  webhook_not_found: 'No such webhook.',
  maintenance_window_not_found: 'No such maintenance window.',
  status_page_not_found: 'No such status page.',
  notice_not_found: 'No such notice.',
  heartbeat_not_found: 'No such heartbeat.',
  channel_not_found: 'No such channel.',
  incident_not_found: 'No such incident.',
};

const DUPLICATE_MESSAGES: Record<DuplicateCode, string> = {
  duplicate_device: 'An identical device exists already.',
  duplicate_blacklist_monitor: 'A blacklist monitor for this target exists already.',
  duplicate_webhook: 'A webhook with this URL exists already.',
};

/**
 * Said by an answer after which the server closes the connection (RFC 9112 §9.6): whatever the
 * client sent after it is not read, so the client must not wait for it to be answered.
 */
export const CLOSES_CONNECTION = { connection: 'close' } as const;

/** The challenge of an RFC 6750 Bearer resource; docs/contract.md §2 step 1 names the realm. */
const BEARER_CHALLENGE = 'Bearer realm="monitoring"';

/** Every 401 carries the challenge (docs/contract.md §2 step 1; RFC 9110 §15.5.2 requires one). */
const UNAUTHORIZED = { headers: { 'www-authenticate': BEARER_CHALLENGE } } as const;

export const errors = {
  missingApiKey: () =>
    new ApiError(401, 'missing_api_key', 'The Authorization header with a Bearer API key is missing.', UNAUTHORIZED),
  invalidApiKey: () =>
    new ApiError(401, 'invalid_api_key', 'The API key is not valid, has expired or was revoked.', UNAUTHORIZED),
  /**
   * The key is known, so the answer shows its quota (docs/decisions.md §3), uncounted: a request
   * refused at the allow-list never reached the rate-limit step, and is not itself refused by it.
   */
  ipNotAllowed: (quota: RateLimitDecision, policy: RateLimitPolicy) =>
    new ApiError(403, 'ip_not_allowed', 'This API key may not be used from your IP address.', {
      headers: keyQuotaHeaders({ ...quota, allowed: true }, policy),
    }),
  // RFC 6750 §3.1: a request whose token lacks the scope says which scope it needs, in the header too.
  insufficientScope: (scope: string) =>
    new ApiError(403, 'insufficient_scope', `This operation needs an API key with the '${scope}' scope.`, {
      headers: { 'www-authenticate': `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"` },
    }),
  /** The key's quota is spent: its fields, and Retry-After, which the message points to (docs/contract.md §8). */
  rateLimited: (decision: RateLimitDecision, policy: RateLimitPolicy) =>
    new ApiError(429, 'rate_limit_exceeded', 'Too many requests: wait for the time given in Retry-After.', {
      headers: keyQuotaHeaders({ ...decision, allowed: false }, policy),
    }),
  /** The address's failed-authentication throttle is spent (docs/decisions.md §2): its fields and Retry-After. */
  authThrottled: (decision: RateLimitDecision, policy: RateLimitPolicy) =>
    new ApiError(
      429,
      'rate_limit_exceeded',
      'Too many failed authentication attempts from your address: wait for the time given in Retry-After.',
      {
        headers: authThrottleHeaders({ ...decision, allowed: false }, policy),
      },
    ),
  unknownRoute: (resource: string | null) =>
    new ApiError(
      404,
      resource === null ? 'unknown_route' : `unknown_${resource.replaceAll('-', '_')}_route`,
      'No such route in this API.',
    ),
  methodNotAllowed: (allow: readonly string[]) =>
    new ApiError(405, 'method_not_allowed', `This route accepts ${allow.join(', ')} only.`, {
      headers: { allow: allow.join(', ') },
    }),
  invalidContentType: () =>
    new ApiError(
      400,
      'invalid_content_type',
      'The request body must be sent as Content-Type: application/json (in UTF-8, if a charset is given).',
    ),
  /**
   * The unread rest of an oversized body is not worth draining, so the connection closes after
   * the answer (docs/decisions.md §4) wherever the server owns it (see toWebResponse).
   */
  payloadTooLarge: (limit: number) =>
    new ApiError(413, 'payload_too_large', `The request body is larger than ${limit} bytes.`, {
      headers: CLOSES_CONNECTION,
    }),
  invalidJson: () => new ApiError(400, 'invalid_json', 'The request body is not a valid UTF-8 JSON object.'),
  /** `cause`: the stream's own failure (a reset, an aborted upload), kept for whoever debugs it. */
  bodyUnreadable: (cause?: unknown) =>
    new ApiError(400, 'invalid_json', 'The request body could not be read to its end.', { cause }),
  validationFailed: (details: ErrorDetail[]) =>
    new ApiError(400, 'validation_failed', 'The request has invalid fields: see details.', { details }),
  invalidId: () => new ApiError(400, 'invalid_id', 'The id query parameter must be given once, as a positive integer.'),
  notFound: (code: NotFoundCode) => new ApiError(404, code, NOT_FOUND_MESSAGES[code]),
  duplicate: (code: DuplicateCode, existingId: number) =>
    new ApiError(409, code, DUPLICATE_MESSAGES[code], { existingId }),
  /**
   * A status page's slug or hostname that another page holds (docs/status-pages.md). Unlike the
   * other duplicates it names no `existing_id`: the page may be another user's.
   */
  takenByAnotherPage: (field: 'slug' | 'hostname') =>
    new ApiError(409, `duplicate_${field}`, `Another status page has this ${field} already.`),
  /** An on-demand check asked again within its minimum gap (docs/engine.md, "Checks on demand"). */
  checkTooSoon: (retryAfterSeconds: number) =>
    new ApiError(
      429,
      'check_too_soon',
      'This record was asked to be checked less than a minute ago: ask again after the time given in Retry-After.',
      { headers: { 'retry-after': String(retryAfterSeconds) } },
    ),
  /** An on-demand check of a disabled record, which is never checked while disabled. */
  recordPaused: () =>
    new ApiError(
      409,
      'record_paused',
      'This record is disabled (is_enabled is false): it is not checked until it is enabled.',
    ),
  serverError: () => new ApiError(500, 'server_error', 'The server failed to handle the request.'),
  webhookTestUnavailable: () =>
    new ApiError(
      503,
      'webhook_test_unavailable',
      'This server cannot send test deliveries: it was set up without a webhook sender.',
    ),
  /** An `email` channel on a server that cannot send mail (docs/notifications.md, "Email"). */
  emailUnavailable: () =>
    new ApiError(
      400,
      'email_unavailable',
      'This server cannot send email: its operator has not configured an SMTP server (--smtp-url).',
    ),
  channelTestUnavailable: () =>
    new ApiError(
      503,
      'channel_test_unavailable',
      'This server cannot send test messages: it was set up without a channel sender.',
    ),
  missingTable: () =>
    new ApiError(500, 'missing_table', 'The database schema is missing: the operator must run the migrations.'),
} as const;
