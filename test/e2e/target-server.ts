/**
 * A monitored web server on loopback whose health the test switches: answering 200, answering
 * 500, or closing every connection without an answer (a crashed backend behind a live port).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  startHttpServer,
  startHttpsServer,
  type FixtureCertificate,
  type LocalServer,
} from '../support/probe-servers.ts';

export type Health = 'ok' | 'error' | 'closed';

export interface TargetServer {
  port: number;
  health: Health;
  /** Requests seen so far (a closed connection counts: the request arrived). */
  readonly requests: number;
  /** Runs before each answer; a test may hold answers back with it (several workers racing). */
  gate: () => Promise<void>;
  /** An HTTPS target shows this fixture certificate from the next handshake on (a renewal). */
  present(certificate: FixtureCertificate): void;
  close(): Promise<void>;
}

export async function startTargetServer(tls?: FixtureCertificate): Promise<TargetServer> {
  let requests = 0;
  const target: TargetServer = {
    port: 0,
    health: 'ok',
    get requests() {
      return requests;
    },
    gate: async () => {},
    present: () => {
      throw new Error('a plain HTTP target shows no certificate');
    },
    close: async () => {},
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    void target.gate().then(() => {
      if (target.health === 'closed') req.socket.destroy();
      else res.writeHead(target.health === 'ok' ? 200 : 500).end();
    });
  };
  let server: LocalServer;
  if (tls === undefined) server = await startHttpServer(handler);
  else {
    const https = await startHttpsServer(tls, handler);
    target.present = (certificate) => https.present(certificate);
    server = https;
  }
  target.port = server.port;
  target.close = () => server.close();
  return target;
}
