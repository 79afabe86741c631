import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Ends each connection of a stopping node:http server cleanly (RFC 9112 §9.6): the last answer
 * owed on a connection says `Connection: close`, and a request that arrives after it on that
 * connection is not processed, so no client is left with a request applied but never answered.
 * Node itself keeps answering keep-alive after `close()`.
 *
 * Connections are tracked, not requests: a connection always ends with 'close', while a request
 * queued behind others on a connection that breaks may never see its response end.
 */
export class ConnectionDrain {
  readonly #sockets = new Set<Socket>();
  /** The last request received on each connection, answered or not. */
  readonly #last = new WeakMap<Socket, ServerResponse>();
  /** Connections whose closing answer is chosen. */
  readonly #ending = new WeakSet<Socket>();
  #draining = false;

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  /** Called for every request before it is handled; false means it must not be handled. */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    if (this.#draining && this.#ending.has(socket)) return false;
    // Recorded while draining too: a connection whose first request arrives during the grace is
    // in use from then on, and the sweep of unused connections must leave it alone.
    this.#last.set(socket, res);
    if (this.#draining) this.#end(socket, res);
    return true;
  }

  /** From now on, the last answer owed on each connection closes it. */
  start(): void {
    this.#draining = true;
    for (const socket of this.#sockets) {
      const res = this.#last.get(socket);
      if (res !== undefined && !res.headersSent) this.#end(socket, res);
    }
  }

  /**
   * The answer still owed to the last request received whole on a connection, if any: what the
   * parser fails on next is a later request. Owed until written out: node holds a pipelined
   * answer that ended early until the ones before it are written, so the last one written is
   * the last one on the wire. (A request still arriving is the one that failed, as when its body
   * times out; its answer is not owed to anything else.)
   */
  owedAnswer(socket: object): ServerResponse | undefined {
    const res = this.#last.get(socket as Socket);
    return res !== undefined && !res.writableFinished && res.req.complete ? res : undefined;
  }

  /** Closes connections that never delivered a request: a client that connected and said nothing. */
  closeUnused(): void {
    for (const socket of this.#sockets) if (!this.#last.has(socket)) socket.destroy();
  }

  #end(socket: Socket, res: ServerResponse): void {
    res.shouldKeepAlive = false;
    this.#ending.add(socket);
  }
}
