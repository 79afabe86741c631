import type { HeaderReader } from './api-request.ts';

const CALLER_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's own X-Request-Id when it is safe to echo and log, else a fresh UUID. */
export function requestId(headers: HeaderReader): string {
  const given = headers.get('x-request-id');
  return given !== null && CALLER_ID.test(given) ? given : crypto.randomUUID();
}
