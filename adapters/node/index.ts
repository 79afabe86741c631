import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MonitoringApi } from '../../core/index.ts';
import { toApiRequest, writeApiResponse } from './node-http.ts';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/**
 * A node:http request listener for the API. With `next` (Connect/Express style), requests outside
 * the base path are passed on; without, they get the API's 404 `unknown_route`.
 */
export function createNodeHandler(api: MonitoringApi): NodeHandler {
  return (req, res, next) => {
    if (next !== undefined) {
      const path = (req.url ?? '/').split('?', 1)[0]!;
      if (!api.owns(path)) return next();
    }
    api
      .handle(toApiRequest(req), { clientAddress: req.socket.remoteAddress ?? null })
      .then((response) => writeApiResponse(res, response))
      .catch((error: unknown) => {
        // handle() answers every error itself; reaching here means the socket failed under us.
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(
            '{"success":false,"error":{"code":"server_error","message":"The server failed to handle the request."}}',
          );
        } else res.destroy(error instanceof Error ? error : undefined);
      });
  };
}
