import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback that a test controls, for taking a server away from a process the way
 * networks do it. Unlike test/support/tcp-proxy.ts (cut and restore only) it can also stall.
 *
 * - `cut()`: every connection is reset and new ones are refused (the server died, a firewall
 *   rejects): clients see an error at once.
 * - `stall()`: nothing moves any more, in either direction, and new connections are accepted but
 *   never answered (a partition, a black-holing firewall, a frozen server): only the client's own
 *   timeouts end the wait. Bytes are held, not lost.
 * - `restore()`: held bytes and held connections go through, and traffic flows again, as TCP
 *   retransmission would deliver them once a partition heals.
 */
export interface FaultProxy {
  readonly port: number;
  /** Connections currently open through the proxy. */
  readonly open: number;
  /** Whether bytes a client sent are held here (stalled): a query the server has not seen is in flight. */
  readonly held: boolean;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket | null;
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export async function startFaultProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<FaultProxy> {
  let mode: 'pass' | 'cut' | 'stall' = 'pass';
  const links = new Set<Link>();

  const drop = (link: Link) => {
    link.client.destroy();
    link.upstream?.destroy();
    links.delete(link);
  };

  const attach = (link: Link) => {
    const upstream = connect(targetPort, targetHost);
    link.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'stall') link.toClient.push(chunk);
      else link.client.write(chunk);
    });
    upstream.on('error', () => drop(link)).on('close', () => drop(link));
    for (const chunk of link.toUpstream.splice(0)) upstream.write(chunk);
  };

  const server: Server = createServer((client) => {
    if (mode === 'cut') {
      client.on('error', () => {});
      client.resetAndDestroy();
      return;
    }
    const link: Link = { client, upstream: null, toUpstream: [], toClient: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (mode === 'stall' || link.upstream === null) link.toUpstream.push(chunk);
      else link.upstream.write(chunk);
    });
    client.on('error', () => drop(link)).on('close', () => drop(link));
    if (mode === 'pass') attach(link);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');

  return {
    port: address.port,
    get open() {
      return links.size;
    },
    get held() {
      return [...links].some((link) => link.toUpstream.length > 0);
    },
    cut() {
      mode = 'cut';
      for (const link of [...links]) {
        link.client.resetAndDestroy();
        link.upstream?.destroy();
        links.delete(link);
      }
    },
    stall() {
      mode = 'stall';
    },
    restore() {
      mode = 'pass';
      for (const link of links) {
        if (link.upstream === null) attach(link);
        else for (const chunk of link.toUpstream.splice(0)) link.upstream.write(chunk);
        for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
      }
    },
    close() {
      mode = 'cut';
      for (const link of [...links]) drop(link);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
