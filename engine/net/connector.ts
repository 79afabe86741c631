import type { Socket } from 'node:net';

/**
 * Answers a host name with its addresses (v4 and v6, in the resolver's order). The default asks
 * the system's resolver, or the `--dns-server` servers when given; tests inject their own, so no
 * test asks a real DNS server anything (docs/engine.md, "Outbound safety").
 */
export type HostLookup = (hostname: string) => Promise<string[]>;

export interface ConnectRequest {
  /** A host name or an IP literal (IPv6 without brackets). */
  host: string;
  port: number;
  /**
   * Gives up connecting after this long: `ProbeFailure('timeout')`. Without it the attempt has no
   * deadline of its own (a name's lookup still has the lookup timeout): the caller ends it, by
   * `signal` or by destroying the socket `onSocket` handed it.
   */
  timeoutMs?: number;
  /** Aborts the attempt (the engine is stopping, or the probe's own deadline passed). */
  signal?: AbortSignal;
  /**
   * Handed each socket as soon as it is made, before it connects, so that a caller with a deadline
   * of its own can end the attempt by destroying it: the attempt then fails with `aborted`. A
   * probe does so, and spares the attempt a timer and a listener of its own.
   */
  onSocket?: (socket: Socket) => void;
}

export interface Connection {
  socket: Socket;
  /** The address connected to: the one the policy judged, never resolved a second time. */
  address: string;
}

/**
 * The only way the engine reaches the network (docs/engine.md, "Outbound safety"): resolve the
 * name, judge every address by the target policy, connect to one that passed. A refused name
 * fails with `ProbeFailure('forbidden_address')`.
 */
export interface Connector {
  connect(request: ConnectRequest): Promise<Connection>;
  /** The addresses `host` would be connected to, each judged by the policy (for pinning a TLS or HTTP client). */
  resolve(host: string): Promise<string[]>;
}

/**
 * A failed probe step, with the short machine-readable reason kept in a result's `error`:
 * `timeout`, `forbidden_address`, `dns_error`, or a system code such as `ECONNREFUSED`.
 */
export class ProbeFailure extends Error {
  override readonly name = 'ProbeFailure';
  readonly code: string;
  constructor(code: string, message: string = code, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
