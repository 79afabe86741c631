import { ApiError } from './api-error.ts';
import { CLOSES_CONNECTION, errors } from './errors.ts';

/** Each of these answers closes its connection: what follows on it cannot be trusted to be framed. */
const closing = { headers: CLOSES_CONNECTION } as const;

/**
 * The answers a server gives outside the API's pipeline: before the API sees a request (malformed
 * HTTP, no Host, CONNECT, oversized headers, a client too slow, an unmet expectation:
 * docs/decisions.md §3), or in the API's place when a shutdown cannot wait for it. The standalone
 * server gives them in the API's envelope (cli/server/protocol-errors.ts); they live here so the OpenAPI
 * document lists the very same codes and messages.
 */
export const protocolErrors = {
  malformed: () => new ApiError(400, 'bad_request', 'The request is not valid HTTP.', closing),
  missingHost: () => new ApiError(400, 'bad_request', 'An HTTP/1.1 request needs a Host header.', closing),
  connect: () => new ApiError(400, 'bad_request', 'CONNECT is not served: this server is not a proxy.', closing),
  headersTooLarge: () =>
    new ApiError(431, 'request_header_fields_too_large', 'The request line or headers are too large.', closing),
  requestTimeout: () => new ApiError(408, 'request_timeout', 'The request was not received in time.', closing),
  expectationFailed: () =>
    new ApiError(417, 'expectation_failed', 'The only expectation served is 100-continue.', closing),
  /**
   * A shutdown's deadline came before the API answered (cli/server/answers-in-flight.ts): a 500 as the
   * API gives it, and the connection closes, since the process is about to end.
   */
  shutdownDeadline: () => errors.serverError().withHeaders(CLOSES_CONNECTION),
} as const;
