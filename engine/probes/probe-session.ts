import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { toTimestamp } from '../../core/internal.ts';
import { ProbeFailure, type ConnectRequest } from '../net/connector.ts';
import { errorCode } from './error-code.ts';
import type { ProbeOptions } from './probe-options.ts';

/**
 * One probe's run: its deadline, the sockets it opened and how long it took. Every wait of a
 * probe goes through `guard`, so the deadline or the engine's abort ends it wherever it is, and
 * `close` leaves no socket behind whatever happened. A silent target thus costs one timeout.
 *
 * A probe is the engine's hottest path (thousands a second on one worker), so the session keeps
 * to one timer and one listener on the engine's signal, and makes an AbortController only for a
 * step that asks for `signal` (an HTTP request): a plain TCP probe needs none
 * (docs/performance.md, "The engine").
 */
export class ProbeSession {
  readonly #options: ProbeOptions;
  readonly #started = performance.now();
  readonly #sockets: Socket[] = [];
  readonly #ended: Promise<never>;
  #endWith: (reason: ProbeFailure) => void = () => undefined;
  readonly #timer: ReturnType<typeof setTimeout>;
  /** Why the probe ended early (its deadline or the engine's abort); undefined while it runs. */
  #reason: ProbeFailure | undefined;
  #controller: AbortController | undefined;
  #connected = false;
  #closed = false;

  constructor(options: ProbeOptions) {
    this.#options = options;
    this.#ended = new Promise<never>((_, reject) => {
      this.#endWith = reject;
    });
    // Only `guard` listens to this; with nothing in flight, an abort is no unhandled rejection.
    this.#ended.catch(() => undefined);
    this.#timer = setTimeout(ProbeSession.#onTimeout, options.probeTimeoutMs, this);
    if (options.signal.aborted) this.#end(new ProbeFailure('aborted'));
    else options.signal.addEventListener('abort', this, { once: true });
  }

  // Static and `this` as the listener object: no closure per probe for the timer and the listener.
  static #onTimeout(session: ProbeSession): void {
    session.#end(new ProbeFailure('timeout'));
  }

  /** The engine's signal aborted: `this` is registered as its listener object. */
  handleEvent(): void {
    this.#end(new ProbeFailure('aborted'));
  }

  #end(reason: ProbeFailure): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#endWith(reason);
  }

  /** Aborted when the probe's time is up or the engine stops. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Resolves as `work` does, unless the probe ends first: then rejects with the reason. */
  guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#ended]);
  }

  /**
   * A TCP connection from the connector, within both the connect timeout and what is left of the
   * probe's time. The socket is tracked from the moment it is made, so the probe's end (its
   * deadline or the engine's abort) destroys a connection still being made, and that ends the
   * attempt: the attempt needs no timer or listener of its own unless the connect timeout ends
   * before the probe's deadline does.
   */
  async connect(host: string, port: number): Promise<Socket> {
    if (this.#reason !== undefined) throw this.#reason;
    const left = this.#options.probeTimeoutMs - (performance.now() - this.#started);
    const request: ConnectRequest = { host, port, onSocket: this.#trackSocket };
    if (this.#options.connectTimeoutMs < left) request.timeoutMs = this.#options.connectTimeoutMs;
    const { socket } = await this.guard(this.#options.connector.connect(request));
    this.#connected = true;
    return socket;
  }

  readonly #trackSocket = (socket: Socket): void => void this.track(socket);

  /** Has `close` destroy the socket (a TLS socket wrapping another is tracked as well). */
  track<S extends Socket>(socket: S): S {
    // A late error (a reset after the answer was judged) must not crash the process; the steps
    // that wait on a socket listen for errors themselves.
    socket.on('error', ignore);
    if (this.#closed) socket.destroy();
    else this.#sockets.push(socket);
    return socket;
  }

  /** Whole milliseconds since the probe started; null until it has connected. */
  responseMs(): number | null {
    return this.#connected ? Math.round(performance.now() - this.#started) : null;
  }

  /** The result's `error` for what a probe step threw: the probe's own end comes first. */
  failureCode(error: unknown): string {
    if (this.#reason !== undefined) return this.#reason.code;
    return errorCode(error);
  }

  /** ISO time of the injected clock: the result's `checked_at` (core's toTimestamp caches per ms). */
  checkedAt(): string {
    return toTimestamp(this.#options.clock.now());
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#options.signal.removeEventListener('abort', this);
    // Newest first: a TLS socket before the TCP socket it wraps. Destroying the TCP socket under
    // a live TLS socket crashes Node 20 (a segfault at exit), and the TLS socket ends both anyway.
    for (let i = this.#sockets.length - 1; i >= 0; i--) this.#sockets[i]!.destroy();
    this.#sockets.length = 0;
  }
}

function ignore(): void {}
