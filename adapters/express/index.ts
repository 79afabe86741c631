import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, MonitoringApi } from '../../core/index.ts';
import { errors } from '../../core/http/api-error.ts';
import { nodeHeaders, writeApiResponse } from '../node/index.ts';

/** The parts of an Express request this adapter reads (Express 4 and 5 alike). */
interface ExpressRequest extends IncomingMessage {
  originalUrl: string;
  /** The path the router was mounted at, as the request spelled it ('' at the root). */
  baseUrl: string;
  body?: unknown;
}

type Next = (error?: unknown) => void;
export type ExpressMiddleware = (req: ExpressRequest, res: ServerResponse, next: Next) => void;
export type ExpressErrorMiddleware = (error: unknown, req: ExpressRequest, res: ServerResponse, next: Next) => void;

type Body = AsyncIterable<Uint8Array> | null;

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Stands for ±Infinity while serialising: JSON.stringify would write null, a different value. */
const INFINITY = `monitoring-api-infinity-${randomUUID()}`;

/**
 * A body the host's parser (express.json, .text or .raw) already read, as bytes again, so that the
 * core's media-type, size and object rules judge it as they judge a raw stream. The Content-Length
 * header still travels with the request, so the size rule is exact whenever the client sent one.
 */
function parsedBody(body: unknown): Body {
  if (body === undefined) return null;
  if (body instanceof Uint8Array) return once(body);
  if (typeof body === 'string') return once(Buffer.from(body));
  // JSON.parse turns an overflowing literal such as 1e400 into Infinity; it is written back as
  // such a literal, so the core answers it as it answers the original text (invalid_type).
  const text = JSON.stringify(body, (_key, value: unknown) =>
    typeof value === 'number' && !Number.isFinite(value) ? `${INFINITY}${value > 0 ? '' : '-'}` : value);
  return once(Buffer.from(text.replaceAll(`"${INFINITY}"`, '1e400').replaceAll(`"${INFINITY}-"`, '-1e400')));
}

/** The host's parser failed on a body it read (body-parser's errors, which Express 4 and 5 share). */
interface ParserError {
  type: string;
  body?: unknown;
  limit?: unknown;
}

function isParserError(error: unknown): error is ParserError {
  return typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string';
}

/**
 * What the core should read after the host's parser failed, so that the API answers in its own
 * envelope and order (contract §2: authentication, scope and media type come before the body).
 * Undefined: not a body error of the API's to answer; the host's error handlers get it.
 */
function bodyAfterParserError(error: ParserError, req: ExpressRequest): Body | undefined {
  switch (error.type) {
    case 'charset.unsupported':
    case 'encoding.unsupported':
      // Refused before reading: the contract allows any media-type parameter and reads UTF-8,
      // so the core reads the untouched stream itself.
      return req.readableDidRead ? undefined : req;
    case 'entity.parse.failed':
      return typeof error.body === 'string' ? once(Buffer.from(error.body)) : undefined;
    case 'entity.too.large': {
      const limit = typeof error.limit === 'number' ? error.limit : 0;
      // The parser drained the bytes; the core meets this error where it would read them.
      return (async function* (): AsyncIterable<Uint8Array> {
        throw errors.payloadTooLarge(limit);
      })();
    }
    default:
      return undefined;
  }
}

/**
 * Express middleware for the API: `app.use('/api/monitoring', monitoringApiMiddleware(api))` with
 * basePath `/v1` serves `/api/monitoring/v1/...`; requests outside it go to `next()`. Works
 * whether or not the host ran `express.json()` first. The client address is the socket's: the
 * API's own `trustProxy` judges forwarding headers, not Express's `trust proxy` setting.
 *
 * Two handlers, for Express to flatten: the second is an error handler, because a host parser
 * that fails (invalid JSON, too large) calls `next(error)` and Express then skips plain
 * middleware. It lets the API answer those in its own envelope, after authentication.
 */
export function monitoringApiMiddleware(api: MonitoringApi): [ExpressMiddleware, ExpressErrorMiddleware] {
  const serve = (req: ExpressRequest, res: ServerResponse, next: Next, url: string, body: Body): void => {
    const request: ApiRequest = { method: req.method ?? 'GET', url, headers: nodeHeaders(req), body };
    api
      .handle(request, { clientAddress: req.socket.remoteAddress ?? null })
      .then((response) => {
        // The core links the next page by the path it saw; the client knows the full one.
        const link = response.headers.link;
        if (link !== undefined && req.baseUrl !== '') response.headers.link = `<${req.baseUrl}${link.slice(1)}`;
        return writeApiResponse(res, response);
      })
      .catch(next);
  };
  /**
   * The request's URL below the mount path, taken from `originalUrl` (middleware before this one
   * may have rewritten `req.url`), or undefined when it lies outside the API.
   */
  const apiUrl = (req: ExpressRequest): string | undefined => {
    const { originalUrl, baseUrl } = req;
    let url = originalUrl.startsWith(baseUrl) ? originalUrl.slice(baseUrl.length) : originalUrl;
    if (!url.startsWith('/')) url = `/${url}`;
    return api.owns(url.split('?', 1)[0]!) ? url : undefined;
  };

  return [
    (req, res, next) => {
      const url = apiUrl(req);
      if (url === undefined) return next();
      // Unread: the core reads the stream under its own limit. Read: reuse what the host parsed.
      serve(req, res, next, url, req.readableDidRead ? parsedBody(req.body) : req);
    },
    (error, req, res, next) => {
      const url = apiUrl(req);
      const body = url !== undefined && isParserError(error) ? bodyAfterParserError(error, req) : undefined;
      if (url === undefined || body === undefined) return next(error);
      serve(req, res, next, url, body);
    },
  ];
}
