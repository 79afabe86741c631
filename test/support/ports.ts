/** Ports on 127.0.0.1: one free to listen on, and waiting for a server to stop taking connections. */
import { connect, createServer } from 'node:net';
import { HANG_GUARD_MS } from './hang-guard.ts';

/** A port on 127.0.0.1 that nothing listens on now, for a server whose address must be known before it prints it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Resolves once a connection to 127.0.0.1:`port` is refused: the server has closed its listener.
 * Any other outcome (accepted, or reset while the listener closes with connections in its queue)
 * is tried again; only the hang guard ends a wait that a stopping server does not.
 */
export async function connectUntilRefused(port: number): Promise<void> {
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('accepted');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    if (outcome === 'ECONNREFUSED') return;
    if (Date.now() > deadline) {
      throw new Error(`127.0.0.1:${port} still takes connections after ${HANG_GUARD_MS} ms (last attempt: ${outcome})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
