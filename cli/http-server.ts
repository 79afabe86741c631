import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createNodeHandler } from '../adapters/node/index.ts';
import type { MonitoringApi } from '../core/index.ts';
import { ConnectionDrain } from './connection-drain.ts';
import { UsageError } from './usage-error.ts';

/** How long a client may take to send its headers, its whole request, and to reuse an idle connection. */
export const SERVER_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 } as const;

const CLIENT_ERRORS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request_header_fields_too_large', 'The request line or headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request was not received in time.'],
};

/**
 * Requests node:http refuses before the API sees them (malformed, oversized headers, too slow)
 * still get a JSON answer in the API's envelope, then the connection closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ success: false, error: { code, message } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export interface ApiServer {
  server: Server;
  /** From now on the last answer owed on each connection says `Connection: close` (see ConnectionDrain). */
  closeConnectionsWhenAnswered(): void;
  /** Closes connections that never delivered a request. */
  closeUnusedConnections(): void;
}

/** The API on a node:http server whose timeouts keep slow or stalled clients from holding sockets. */
export function createApiServer(api: MonitoringApi): ApiServer {
  const handle = createNodeHandler(api);
  // Node enforces the header and request timeouts only when it checks its connections, every
  // 30 s unless told otherwise. Header count and size stay at Node's defaults (431 beyond them).
  const server = createServer({ connectionsCheckingInterval: 1_000, ...SERVER_TIMEOUTS }, (req, res) => {
    if (drain.admit(req, res)) handle(req, res);
  });
  const drain = new ConnectionDrain(server);
  server.on('clientError', answerClientError);
  return {
    server,
    closeConnectionsWhenAnswered: () => drain.start(),
    closeUnusedConnections: () => drain.closeUnused(),
  };
}

/** Listens, or throws a UsageError naming the address (in use, not ours, not resolvable). */
export async function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(`cannot listen on ${host}:${port}: ${code ?? message}`);
  }
  return server.address() as AddressInfo;
}

/** The API's base URL as a client would write it: IPv6 hosts in brackets. */
export function baseUrl(address: AddressInfo, basePath: string): string {
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${basePath}`;
}
