import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from './http-server.ts';

export interface SideListener {
  server: Server;
  address: AddressInfo;
  close(): Promise<void>;
}

/**
 * A small node:http listener beside the API's (a worker's health checks, the metrics): `handle`
 * says whether it answered, and anything else is a plain 404. It keeps node:http's timeouts and
 * closes its connections when closed, so it never holds a stop up.
 */
export async function startSideListener(
  host: string,
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<SideListener> {
  const timeouts = { requestTimeout: 10_000, headersTimeout: 5_000, keepAliveTimeout: 5_000 };
  const server = createServer(timeouts, (req, res) => {
    if (handle(req, res)) return;
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('not found\n');
  });
  const address = await listen(server, port, host);
  return {
    server,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `http://HOST:PORT` of a listener, IPv6 hosts in brackets. */
export function listenerUrl(address: AddressInfo): string {
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
