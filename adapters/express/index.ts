import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiRequest, MonitoringApi } from '../../core/index.ts';
import { nodeHeaders, writeApiResponse } from '../node/index.ts';

/** The parts of an Express request this adapter reads (Express 4 and 5 alike). */
interface ExpressRequest extends IncomingMessage {
  originalUrl: string;
  body?: unknown;
}

export type ExpressMiddleware = (req: ExpressRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The body as the core expects to read it. When a host parser such as `express.json()` consumed
 * the stream already, its result is serialised again, so the contract's media-type, size and
 * object rules still judge it; otherwise the raw stream is read under the API's own limit.
 */
function bodyOf(req: ExpressRequest): AsyncIterable<Uint8Array> | null {
  if (!req.readableEnded) return req;
  if (req.body === undefined) return null;
  const bytes = Buffer.from(JSON.stringify(req.body));
  return (async function* () {
    yield bytes;
  })();
}

/**
 * Express middleware for the API: `app.use('/api/monitoring', monitoringApiMiddleware(api))` with
 * basePath `/v1` serves `/api/monitoring/v1/...`. Paths outside the API go to `next()`. The
 * client address is the socket's: the API's own `trustProxy` judges forwarding headers, not
 * Express's `trust proxy` setting.
 */
export function monitoringApiMiddleware(api: MonitoringApi): ExpressMiddleware {
  return (req, res, next) => {
    const url = req.originalUrl ?? req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    if (!api.owns(path)) return next();
    const request: ApiRequest = { method: req.method ?? 'GET', url, headers: nodeHeaders(req), body: bodyOf(req) };
    api
      .handle(request, { clientAddress: req.socket.remoteAddress ?? null })
      .then((response) => writeApiResponse(res, response))
      .catch(next);
  };
}
