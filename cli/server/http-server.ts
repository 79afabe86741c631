import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createNodeHandler } from '../../adapters/node/index.ts';
import type { MonitoringApi } from '../../core/index.ts';
import { AnswersInFlight } from './answers-in-flight.ts';
import { ConnectionDrain } from './connection-drain.ts';
import { answerHealth, type ReadinessCheck } from './health.ts';
import { answerClientError, answerConnect, answerExpectation, answeredMissingHost } from './protocol-errors.ts';
import { UsageError } from '../usage-error.ts';

/** How long a client may take to send its headers, its whole request, and to reuse an idle connection. */
export const SERVER_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 } as const;

export interface ApiServer {
  server: Server;
  /** From now on the last answer owed on each connection says `Connection: close` (see ConnectionDrain). */
  closeConnectionsWhenAnswered(): void;
  /** Closes connections that never delivered a request. */
  closeUnusedConnections(): void;
  /** Answers every request still in flight 500 (a shutdown's deadline); resolves with how many. */
  answerInFlightWithServerError(): Promise<number>;
}

export interface ServerTimeouts {
  headersTimeout?: number;
  requestTimeout?: number;
  keepAliveTimeout?: number;
  /** How often node:http checks the header and request timeouts (default 1 s). */
  connectionsCheckingInterval?: number;
}

/**
 * The API on a node:http server whose timeouts keep slow or stalled clients from holding sockets.
 * `timeouts` replaces SERVER_TIMEOUTS, for tests that must not wait real seconds. With `ready`,
 * `/healthz` and `/readyz` are answered beside the API, outside its base path (health.ts).
 */
export function createApiServer(api: MonitoringApi, timeouts: ServerTimeouts = {}, ready?: ReadinessCheck): ApiServer {
  const handle = createNodeHandler(api);
  // Node enforces the header and request timeouts only when it checks its connections, every
  // 30 s unless told otherwise: every second here, or more often when a timeout is shorter than
  // two seconds, so that no timeout is overrun by more than half of itself. Header count and size
  // stay at Node's defaults (431 beyond them).
  const merged = { ...SERVER_TIMEOUTS, ...timeouts };
  const shortest = Math.min(merged.headersTimeout, merged.requestTimeout);
  const options = {
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(shortest / 2))),
    requireHostHeader: false,
    ...merged,
  };
  const server = createServer(options, (req, res) => {
    if (!drain.admit(req, res) || answeredMissingHost(req, res)) return;
    inFlight.track(res);
    if (ready !== undefined && answerHealth(req, res, ready)) return;
    handle(req, res);
  });
  const drain = new ConnectionDrain(server);
  const inFlight = new AnswersInFlight();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, drain.owedAnswer(socket)),
  );
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerConnect(socket, drain.owedAnswer(socket)));
  server.on('checkExpectation', answerExpectation);
  return {
    server,
    closeConnectionsWhenAnswered: () => drain.start(),
    closeUnusedConnections: () => drain.closeUnused(),
    answerInFlightWithServerError: () => inFlight.answerAllWithServerError(),
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
