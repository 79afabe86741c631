import { ApiError } from './api-error.ts';

/**
 * The answers a server gives before the API sees a request: malformed HTTP, no Host, CONNECT,
 * oversized headers, a client too slow, an unmet expectation. The standalone server gives them in
 * the API's envelope (cli/protocol-errors.ts); they live here so the OpenAPI document lists the
 * very same codes and messages.
 */
export const protocolErrors = {
  malformed: () => new ApiError(400, 'bad_request', 'The request is not valid HTTP.'),
  missingHost: () => new ApiError(400, 'bad_request', 'An HTTP/1.1 request needs a Host header.'),
  connect: () => new ApiError(400, 'bad_request', 'CONNECT is not served: this server is not a proxy.'),
  headersTooLarge: () => new ApiError(431, 'request_header_fields_too_large', 'The request line or headers are too large.'),
  requestTimeout: () => new ApiError(408, 'request_timeout', 'The request was not received in time.'),
  expectationFailed: () => new ApiError(417, 'expectation_failed', 'The only expectation served is 100-continue.'),
} as const;
