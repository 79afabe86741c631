import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ProbeFailure } from '../net/connector.ts';
import { errorCode } from './error-code.ts';
import type { ProbeOptions } from './probe-options.ts';

/**
 * One probe's run: its deadline, the sockets it opened and how long it took. Every wait of a
 * probe goes through `guard`, so the deadline or the engine's abort ends it wherever it is, and
 * `close` leaves no socket behind whatever happened. A silent target thus costs one timeout.
 */
export class ProbeSession {
  readonly #options: ProbeOptions;
  readonly #started = performance.now();
  readonly #controller = new AbortController();
  readonly #sockets = new Set<Socket>();
  readonly #ended: Promise<never>;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #onOuterAbort = () => this.#controller.abort(new ProbeFailure('aborted'));
  #connected = false;
  #closed = false;

  constructor(options: ProbeOptions) {
    this.#options = options;
    this.#timer = setTimeout(() => this.#controller.abort(new ProbeFailure('timeout')), options.probeTimeoutMs);
    if (options.signal.aborted) this.#onOuterAbort();
    else options.signal.addEventListener('abort', this.#onOuterAbort, { once: true });
    const signal = this.#controller.signal;
    this.#ended = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    // Only `guard` listens to this; with nothing in flight, an abort is no unhandled rejection.
    this.#ended.catch(() => undefined);
  }

  /** Aborted when the probe's time is up or the engine stops. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Resolves as `work` does, unless the probe ends first: then rejects with the reason. */
  guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#ended]);
  }

  /**
   * A TCP connection from the connector, within both the connect timeout and what is left of the
   * probe's. A connection that arrives after the probe ended is closed at once.
   */
  async connect(host: string, port: number): Promise<Socket> {
    const left = this.#options.probeTimeoutMs - (performance.now() - this.#started);
    const attempt = this.#options.connector.connect({
      host, port, timeoutMs: Math.max(1, Math.min(this.#options.connectTimeoutMs, left)), signal: this.signal,
    });
    attempt.then((connection) => this.track(connection.socket), () => undefined);
    const { socket } = await this.guard(attempt);
    this.#connected = true;
    return socket;
  }

  /** Has `close` destroy the socket (a TLS socket wrapping another is tracked as well). */
  track<S extends Socket>(socket: S): S {
    // A late error (a reset after the answer was judged) must not crash the process; the steps
    // that wait on a socket listen for errors themselves.
    socket.on('error', () => undefined);
    if (this.#closed) socket.destroy();
    else this.#sockets.add(socket);
    return socket;
  }

  /** Whole milliseconds since the probe started; null until it has connected. */
  responseMs(): number | null {
    return this.#connected ? Math.round(performance.now() - this.#started) : null;
  }

  /** The result's `error` for what a probe step threw: the probe's own end comes first. */
  failureCode(error: unknown): string {
    if (this.signal.aborted) return errorCode(this.signal.reason);
    return errorCode(error);
  }

  /** ISO time of the injected clock: the result's `checked_at`. */
  checkedAt(): string {
    return new Date(this.#options.clock.now()).toISOString();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#options.signal.removeEventListener('abort', this.#onOuterAbort);
    // Newest first: a TLS socket before the TCP socket it wraps. Destroying the TCP socket under
    // a live TLS socket crashes Node 20 (a segfault at exit), and the TLS socket ends both anyway.
    for (const socket of [...this.#sockets].reverse()) socket.destroy();
    this.#sockets.clear();
  }
}
