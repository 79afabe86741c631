import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, MonitoringApi } from '../../core/index.ts';
import { nodeHeaders, writeApiResponse } from '../node/node-http.ts';
import { bodyAfterParserError, hostParsedBody, type Body } from './host-parsed-body.ts';

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

/** The scheme and authority of a request target in absolute form. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

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
    // A request in absolute form (RFC 9112 §3.2.2) keeps its scheme and authority in originalUrl;
    // Express routed it by its path, and so does this.
    const originalUrl = req.originalUrl.replace(ABSOLUTE_FORM, '');
    const { baseUrl } = req;
    let url = originalUrl.startsWith(baseUrl) ? originalUrl.slice(baseUrl.length) : originalUrl;
    if (!url.startsWith('/')) url = `/${url}`;
    return api.owns(url.split('?', 1)[0]!) ? url : undefined;
  };

  return [
    (req, res, next) => {
      const url = apiUrl(req);
      if (url === undefined) return next();
      // Unread: the core reads the stream under its own limit. Read: reuse what the host parsed.
      serve(req, res, next, url, req.readableDidRead ? hostParsedBody(req.body) : req);
    },
    (error, req, res, next) => {
      const url = apiUrl(req);
      const body = url !== undefined ? bodyAfterParserError(error, req) : undefined;
      if (url === undefined || body === undefined) return next(error);
      serve(req, res, next, url, body);
    },
  ];
}
