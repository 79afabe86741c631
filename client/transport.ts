/**
 * One API call over fetch: headers, the envelope, typed errors, and the opt-in retry of 429.
 * Only web-platform globals (fetch, URL, Headers, setTimeout, AbortSignal), so it runs unchanged in
 * Node 20+, Bun, Deno, browsers and workers.
 */
import { MonitoringApiError } from './errors.ts';
import type { ErrorDetail, PageCursor, RequestOptions, ResultCursor, RetryOptions } from './types.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Answer<T> {
  data: T;
  headers: Headers;
  /** The URL that answered, to resolve the path-relative Link header against. */
  url: URL;
}

const DEFAULT_MAX_DELAY_MS = 60_000;
/** Used when a 429 comes without Retry-After (the API always sends it; a proxy might not). */
const FALLBACK_DELAY_MS = 1_000;

export interface Transport {
  send<T>(method: Method, url: URL, body: unknown, options: RequestOptions | undefined): Promise<Answer<T>>;
}

export function createTransport(token: string, fetchImpl: typeof fetch, retry: RetryOptions | undefined): Transport {
  const retries = retry?.retries ?? 0;
  const maxDelayMs = retry?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError('retry.retries must be a non-negative integer');
  if (!(maxDelayMs >= 0)) throw new TypeError('retry.maxDelayMs must be a non-negative number');

  async function send<T>(method: Method, url: URL, body: unknown, options: RequestOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.requestId !== undefined) headers['x-request-id'] = options.requestId;
    const payload = body === undefined ? undefined : JSON.stringify(body);

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(url, { method, headers, body: payload, signal: options.signal });
      } catch (error) {
        // Whether a POST that failed here was executed is unknown, so it is never retried: a
        // caller who repeats it can rely on the 409's existingId instead of making a duplicate.
        throw options.signal?.aborted === true
          ? new MonitoringApiError({ status: 0, code: 'aborted', message: 'The request was aborted.', cause: error })
          : new MonitoringApiError({
              status: 0,
              code: 'network_error',
              message: `No answer from ${url.origin}: ${String(error)}`,
              cause: error,
            });
      }
      if (response.status === 429 && attempt < retries) {
        const delay = retryDelayMs(response.headers);
        if (delay <= maxDelayMs) {
          // A 429 was refused before anything ran (the quota is judged before the route), so
          // sending the very same request again is safe for every method, create included.
          await response.body?.cancel();
          await sleep(delay, options.signal);
          continue;
        }
      }
      return read<T>(response, url);
    }
  }

  return { send };
}

async function read<T>(response: Response, requested: URL): Promise<Answer<T>> {
  const requestId = response.headers.get('x-request-id');
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MonitoringApiError({
      status: response.status,
      code: 'unexpected_response',
      requestId,
      message: `HTTP ${response.status} without a JSON body: ${text.slice(0, 200)}`,
    });
  }
  if (!isObject(body) || typeof body.success !== 'boolean') {
    throw new MonitoringApiError({
      status: response.status,
      code: 'unexpected_response',
      requestId,
      message: `HTTP ${response.status} without the API's envelope.`,
    });
  }
  if (body.success && response.ok && 'data' in body) {
    return {
      data: body.data as T,
      headers: response.headers,
      url: response.url === '' ? requested : new URL(response.url),
    };
  }
  const error = isObject(body.error) ? body.error : {};
  const retryAfter = response.status === 429 ? retryDelayMs(response.headers) / 1000 : undefined;
  throw new MonitoringApiError({
    status: response.status,
    code: typeof error.code === 'string' ? error.code : 'unexpected_response',
    message: typeof error.message === 'string' ? error.message : `HTTP ${response.status}`,
    details: Array.isArray(error.details) ? (error.details as ErrorDetail[]) : [],
    existingId: typeof error.existing_id === 'number' ? error.existing_id : undefined,
    requestId,
    retryAfterSeconds: retryAfter,
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Retry-After in seconds (or an HTTP date), else `t` of the RateLimit field, else a second. */
export function retryDelayMs(headers: Headers): number {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^[0-9]+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  const reset = headers.get('ratelimit')?.match(/;\s*t=([0-9]+)/);
  return reset ? Number(reset[1]) * 1000 : FALLBACK_DELAY_MS;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () =>
      new MonitoringApiError({
        status: 0,
        code: 'aborted',
        message: 'The request was aborted while waiting to retry.',
        cause: signal?.reason,
      });
    if (signal?.aborted === true) {
      reject(aborted());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The `rel="next"` target of a Link header, resolved against the URL that answered, or null.
 * (RFC 8288; the API sends one link, but the parser does not rely on it.)
 */
export function nextLink(headers: Headers, base: URL): URL | null {
  const link = headers.get('link');
  if (link === null) return null;
  for (const match of link.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? '';
    const rel = params.match(/;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return new URL(match[1]!, base);
  }
  return null;
}

function sameRoute(next: URL, current: URL): void {
  if (next.origin !== current.origin || next.pathname !== current.pathname) {
    throw new MonitoringApiError({
      status: 200,
      code: 'unexpected_response',
      message: `The next-page link leaves the API: ${next.href}`,
    });
  }
}

/** The cursor a next link carries; the link must stay on the same origin and path, since the key goes with it. */
export function cursorOf(next: URL, current: URL): PageCursor {
  sameRoute(next, current);
  const limit = Number(next.searchParams.get('limit'));
  const afterId = Number(next.searchParams.get('after_id'));
  if (!Number.isSafeInteger(limit) || limit < 1 || !Number.isSafeInteger(afterId) || afterId < 0) {
    throw new MonitoringApiError({
      status: 200,
      code: 'unexpected_response',
      message: `The next-page link has no valid limit and after_id: ${next.href}`,
    });
  }
  return { limit, afterId };
}

/**
 * The cursor a results page's next link carries. Besides staying on the same origin and path, it
 * must name the same record: a link to another record's results would mix them into this walk.
 */
export function resultCursorOf(next: URL, current: URL): ResultCursor {
  sameRoute(next, current);
  const limit = Number(next.searchParams.get('limit'));
  const beforeId = Number(next.searchParams.get('before_id'));
  const sameRecord = next.searchParams.get('id') === current.searchParams.get('id');
  if (!sameRecord || !Number.isSafeInteger(limit) || limit < 1 || !Number.isSafeInteger(beforeId) || beforeId < 1) {
    throw new MonitoringApiError({
      status: 200,
      code: 'unexpected_response',
      message: `The next-page link has no valid id, limit and before_id: ${next.href}`,
    });
  }
  return { limit, beforeId };
}
