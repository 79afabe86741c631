import type { ApiError, ErrorDetail } from './api-error.ts';

/** A response body: a whole JSON text, or one produced in chunks (streamed lists). */
export type ApiResponseBody = string | AsyncIterable<string>;

/**
 * The core's answer before it becomes a Web `Response`; adapters on a hot path write it to their
 * socket directly. Header names are lower-case.
 */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: ApiResponseBody;
  /**
   * The UTF-8 length of a string body, when the core knows it already (a kept list answer), so
   * that an adapter that writes Content-Length itself need not count it again for every answer.
   */
  bodyLength?: number;
  /**
   * The body as bytes, when the core has them, which an adapter that writes bytes sends instead of
   * `body`: a string body already encoded as UTF-8 (a kept answer asked again), or a body that is
   * not text, or not as text (a status page compressed, with its `content-encoding`), whose
   * `body` is then ''. Read-only.
   */
  bodyBytes?: Uint8Array<ArrayBuffer>;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An answer whose body is already JSON text (or chunks of it). */
export function jsonResponse(status: number, body: ApiResponseBody, headers: Record<string, string> = {}): ApiResponse {
  headers['content-type'] = JSON_CONTENT_TYPE;
  return { status, headers, body };
}

/** The success envelope around `data`, as JSON text. */
export function successBody(data: unknown): string {
  return successBodyOf(JSON.stringify(data));
}

/**
 * The JSON of `values` without its brackets: an array's elements as JSON joins by commas, so a body
 * can be assembled from parts (a streamed list's batches, a series' kept days).
 */
export function jsonElements(values: readonly unknown[]): string {
  return JSON.stringify(values).slice(1, -1);
}

/** The success envelope around `json`, data already written as JSON text. */
export function successBodyOf(json: string): string {
  return `{"success":true,"data":${json}}`;
}

export function successResponse(status: number, data: unknown, headers: Record<string, string> = {}): ApiResponse {
  return jsonResponse(status, successBody(data), headers);
}

/** The error object of the failure envelope (docs/contract.md §3), members in this order. */
interface ErrorBody {
  code: string;
  message: string;
  details?: readonly ErrorDetail[];
  existing_id?: number;
}

/**
 * The answer to `error`: its status, the failure envelope, and the header fields the error carries
 * (a fresh object, so the pipeline may add its own). The per-request fields, X-Request-Id and the
 * key's quota, are the pipeline's to add (core/create-monitoring-api.ts).
 */
export function errorResponse(error: ApiError): ApiResponse {
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  if (error.existingId !== undefined) body.existing_id = error.existingId;
  return {
    status: error.status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...error.headers },
    body: JSON.stringify({ success: false, error: body }),
  };
}

/**
 * The fields a Web `Response` carries: all but `Connection`. That one is hop-by-hop (RFC 9110
 * §7.6.1), the business of whoever owns the socket; the runtimes that take a `Response` (Bun,
 * Deno) manage their connections themselves, and Deno would even send `Connection: close` while
 * keeping the connection open. docs/decisions.md §4 closes after a 413 on node:http only.
 */
function webHeaders(headers: Record<string, string>): Record<string, string> {
  if (!('connection' in headers)) return headers;
  const web: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name !== 'connection') web[name] = value;
  return web;
}

/** Turns the core's answer into a Web `Response`, encoding a chunked body as a byte stream. */
export function toWebResponse(response: ApiResponse): Response {
  const { body } = response;
  const headers = webHeaders(response.headers);
  // A 304 (a status page's ETag matched) has no body, and a Web Response refuses one, even empty.
  if (response.status === 304) return new Response(null, { status: 304, headers });
  if (typeof body === 'string') return new Response(response.bodyBytes ?? body, { status: response.status, headers });
  const encoder = new TextEncoder();
  const iterator = body[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(stream, { status: response.status, headers });
}
