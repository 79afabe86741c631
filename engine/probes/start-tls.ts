import type { Socket } from 'node:net';
import { checkServerIdentity, connect, type TLSSocket } from 'node:tls';
import { contextTrusting } from '../net/trusted-context.ts';
import type { ProbeSession } from './probe-session.ts';

export interface StartTlsOptions {
  /** SNI; none for an IP address. */
  servername: string | undefined;
  /** The name (or IP) the certificate is checked against, SNI or not. */
  identity: string;
  /** Extra trusted certificates (PEM), added to Node's own list. */
  ca?: readonly string[] | undefined;
  /** Offered by ALPN: the HTTP probes ask for HTTP/1.1 so that an h2-first server stays in 1.1. */
  alpn?: string[];
}

/**
 * A TLS handshake over a socket the connector opened (so the address stays the one the policy
 * judged). The handshake is never refused for the certificate: Node still verifies chain and name
 * and reports the outcome in `authorized` / `authorizationError`, which `public_tls` reads and the
 * other probes ignore (a certificate is judged by one probe, not by all of them).
 */
export async function startTls(session: ProbeSession, socket: Socket, options: StartTlsOptions): Promise<TLSSocket> {
  const tlsSocket = session.track(
    connect({
      socket,
      ...(options.servername === undefined ? {} : { servername: options.servername }),
      rejectUnauthorized: false,
      ...(options.ca === undefined ? {} : { secureContext: contextTrusting(options.ca) }),
      ...(options.alpn === undefined ? {} : { ALPNProtocols: options.alpn }),
      // Without SNI Node would check the certificate against the socket's address; say which name.
      checkServerIdentity: (_host, certificate) => checkServerIdentity(options.identity, certificate),
    }),
  );
  await session.guard(
    new Promise<void>((resolve, reject) => {
      tlsSocket.once('secureConnect', resolve);
      tlsSocket.once('error', reject);
      tlsSocket.once('close', () =>
        reject(Object.assign(new Error('closed during the TLS handshake'), { code: 'ECONNRESET' })),
      );
    }),
  );
  return tlsSocket;
}
