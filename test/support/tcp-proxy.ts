import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback that a test controls: `cut()` drops every connection and refuses new
 * ones (a network partition, as the client sees it), `restore()` lets traffic through again.
 * Used to take PostgreSQL or Redis away from a process without stopping the shared server.
 */
export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
