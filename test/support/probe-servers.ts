import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import { after } from 'node:test';
import { ROOT } from './root.ts';

const FIXTURES = `${join(ROOT, 'test', 'probes', 'fixtures')}/`;

export type FixtureCertificate = 'valid' | 'expired' | 'wrong-name' | 'self-signed';

export function fixtureKeyPair(name: FixtureCertificate): { cert: string; key: string } {
  return { cert: readFileSync(`${FIXTURES}${name}.pem`, 'utf8'), key: readFileSync(`${FIXTURES}${name}.key`, 'utf8') };
}

/** The test CA, for the TLS probe's `ca` option. */
export const TEST_CA = readFileSync(`${FIXTURES}ca.pem`, 'utf8');

/** A server listening on 127.0.0.1 at a free port; `close` ends its connections too. */
export interface LocalServer {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  // A TLS server reports its TCP sockets by 'connection' too, before the handshake.
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function startHttpServer(handler: RequestListener): Promise<LocalServer> {
  return listen(createHttpServer(handler));
}

/** An HTTPS server on 127.0.0.1; `present` swaps its certificate from the next handshake on (a renewal). */
export interface HttpsServer extends LocalServer {
  present(certificate: FixtureCertificate): void;
}

export async function startHttpsServer(
  certificate: FixtureCertificate,
  handler: RequestListener,
): Promise<HttpsServer> {
  const server = createHttpsServer(fixtureKeyPair(certificate), handler);
  // Assigned onto the listening server's object, so its `connections` getter stays live.
  return Object.assign(await listen(server), {
    present: (next: FixtureCertificate) => server.setSecureContext(fixtureKeyPair(next)),
  });
}

/**
 * A TLS server that completes handshakes and then says nothing: what the TLS probes need.
 * `onServername` hears each client's SNI while the handshake is under way (never when a client
 * sends none), so it has been heard by the time the client's handshake is done.
 */
export function startTlsServer(
  certificate: FixtureCertificate,
  onServername?: (servername: string) => void,
): Promise<LocalServer> {
  return listen(
    createTlsServer({
      ...fixtureKeyPair(certificate),
      SNICallback: (servername, done) => {
        onServername?.(servername);
        done(null, undefined);
      },
    }),
  );
}

/** A plain TCP server running `onConnection` for each client (a banner, an answer, or silence). */
export function startTcpServer(onConnection: (socket: Socket) => void = () => undefined): Promise<LocalServer> {
  return listen(createNetServer(onConnection));
}

/**
 * Starts TCP servers for the calling test file with `onConnection` each, all closed after its
 * tests: for files whose every test serves its own conversation.
 */
export function tcpServersClosedAfter(): (onConnection: (socket: Socket) => void) => Promise<LocalServer> {
  const servers: LocalServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  return async (onConnection) => {
    const server = await startTcpServer(onConnection);
    servers.push(server);
    return server;
  };
}
