import net from 'node:net';
import { canonicalIp, isForbiddenName, isPublicIp } from '../../core/internal.ts';
import type { DnsHealth } from '../dnsbl/dns-health.ts';
import {
  RESOLVER_FAILURE_CODES,
  RESOLVER_UNAVAILABLE,
  RESOLVER_UNREACHABLE,
  UNANSWERED_LOOKUP_CODES,
} from '../our-failures.ts';
import { ProbeFailure, type Connection, type ConnectRequest, type Connector, type HostLookup } from './connector.ts';
import type { ResolverCanary } from './resolver-canary.ts';

export interface GuardedConnectorOptions {
  /** Answers host names; the default is `systemLookup`'s (see engine/net/system-lookup.ts). */
  lookup: HostLookup;
  /** Lifts the target policy, as the API's option of the same name does. */
  allowPrivateTargets?: boolean;
  /** A lookup that takes longer fails with `timeout`. */
  lookupTimeoutMs: number;
  /**
   * The local address connections leave from (`--probe-source-address`), for targets of its
   * family; the system's choice when absent, and for targets of the other family.
   */
  localAddress?: string;
  /**
   * Told of each lookup's outcome; while it says the resolver is down, a lookup that fails the
   * resolver's way fails with `resolver_unavailable` (engine/our-failures.ts).
   */
  resolverHealth?: DnsHealth;
  /**
   * Asks `lookup`'s own servers whether they answer at all before a lookup left unanswered counts
   * as the name's failure (engine/net/resolver-canary.ts). Only with `resolverHealth`, and only
   * when `lookup` goes to the servers the canary asks.
   */
  resolverCanary?: ResolverCanary;
}

/** `promise` within `ms`; `halfway`, when given, is called if it is still unsettled half-way through. */
function withDeadline<T>(promise: Promise<T>, ms: number, signal?: AbortSignal, halfway?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const expire = () => finish(() => reject(new ProbeFailure('timeout', `no answer within ${ms} ms`)));
    const half = Math.floor(ms / 2);
    // One timer at a time: the half-way one sets the one for the rest.
    let timer =
      halfway === undefined
        ? setTimeout(expire, ms)
        : setTimeout(() => {
            timer = setTimeout(expire, ms - half);
            halfway();
          }, half);
    const onAbort = () => finish(() => reject(new ProbeFailure('aborted')));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

/**
 * The engine's only way out (docs/engine.md, "Outbound safety"). A name is resolved once, every
 * address it has is judged by the target policy, and the connection goes to a judged address
 * (pinned: nothing resolves the name again between the judging and the connecting). A name with
 * any forbidden address is refused whole: a public address beside a private one is how DNS
 * rebinding is set up, and no honest target needs it. IPv4-mapped IPv6 is judged, and connected
 * to, as the IPv4 address it is.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): Connector {
  const allowPrivate = options.allowPrivateTargets === true;

  const judge = (address: string, host: string): string => {
    const canonical = canonicalIp(address);
    if (canonical === null || (!allowPrivate && !isPublicIp(canonical))) {
      throw new ProbeFailure('forbidden_address', `${host} resolves to ${address}, which the target policy refuses`);
    }
    return canonical;
  };

  /** An IP literal's one judged address, without a lookup or a promise; null for a name. */
  const literalAddress = (host: string): string | null => {
    const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    return canonicalIp(literal) === null ? null : judge(literal, host);
  };

  const resolveWithin = async (host: string, timeoutMs: number, signal?: AbortSignal): Promise<string[]> => {
    const literal = literalAddress(host);
    if (literal !== null) return [literal];
    if (!allowPrivate && isForbiddenName(host))
      throw new ProbeFailure('forbidden_address', `${host} is a special-use name`);
    let addresses: string[];
    const health = options.resolverHealth;
    const canary = health === undefined ? undefined : options.resolverCanary;
    const mark = health?.sent() ?? 0;
    // Half the lookup's deadline: a canary sent half-way through is known by the time the lookup's is.
    const canaryMs = Math.max(1, Math.ceil(timeoutMs / 2));
    const askCanary = canary === undefined ? undefined : () => void canary.check(mark, canaryMs);
    try {
      addresses = await withDeadline(options.lookup(host), timeoutMs, signal, askCanary);
      health?.answered();
    } catch (error) {
      const code =
        error instanceof ProbeFailure || typeof (error as { code?: unknown }).code === 'string'
          ? (error as { code: string }).code
          : 'dns_error';
      if (health !== undefined && RESOLVER_FAILURE_CODES.has(code)) {
        health.silent(mark, code === 'ETIMEOUT' ? 'timeout' : code);
        // No answer: the resolver's silence or the name's? The canary says, before it counts.
        if (canary !== undefined && UNANSWERED_LOOKUP_CODES.has(code)) await canary.check(mark, canaryMs);
        if (health.down || code === RESOLVER_UNREACHABLE) {
          throw new ProbeFailure(RESOLVER_UNAVAILABLE, `cannot resolve ${host}: the resolver fails (${code})`, {
            cause: error,
          });
        }
      } else if (health !== undefined && code !== 'aborted') {
        health.answered();
      }
      if (error instanceof ProbeFailure) throw error;
      throw new ProbeFailure('dns_error', `cannot resolve ${host}: ${(error as Error).message}`, { cause: error });
    }
    if (addresses.length === 0) throw new ProbeFailure('dns_error', `${host} has no address`);
    return [...new Set(addresses.map((address) => judge(address, host)))];
  };

  const connectTo = (address: string, port: number, request: ConnectRequest, timeoutMs: number): Promise<net.Socket> =>
    new Promise<net.Socket>((resolve, reject) => {
      const { signal } = request;
      const local = options.localAddress;
      const socket = net.connect(
        local !== undefined && net.isIP(local) === net.isIP(address)
          ? { host: address, port, localAddress: local }
          : { host: address, port },
      );
      const fail = (failure: ProbeFailure) => {
        cleanup();
        socket.destroy();
        reject(failure);
      };
      const onTimeout = () =>
        fail(new ProbeFailure('timeout', `no connection to ${address}:${port} within ${timeoutMs} ms`));
      const onAbort = () => fail(new ProbeFailure('aborted'));
      const onError = (error: NodeJS.ErrnoException) =>
        fail(new ProbeFailure(error.code ?? 'connect_error', error.message, { cause: error }));
      const onConnect = () => {
        cleanup();
        resolve(socket);
      };
      // No deadline of its own when the caller keeps one (ConnectRequest.timeoutMs).
      const timer = Number.isFinite(timeoutMs) ? setTimeout(onTimeout, timeoutMs) : undefined;
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        socket.off('error', onError);
        socket.off('connect', onConnect);
        socket.off('close', onAbort);
      };
      socket.once('error', onError);
      socket.once('connect', onConnect);
      // Destroyed by the caller before it connected (its own deadline passed): the attempt is over.
      socket.once('close', onAbort);
      request.onSocket?.(socket);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });

  return {
    resolve: (host) => resolveWithin(host, options.lookupTimeoutMs),

    async connect(request: ConnectRequest): Promise<Connection> {
      if (request.signal?.aborted) throw new ProbeFailure('aborted');
      const timeoutMs = request.timeoutMs ?? Number.POSITIVE_INFINITY;
      const deadline = Date.now() + timeoutMs;
      // A literal (every bench target, many real ones) takes no lookup path at all.
      const literal = literalAddress(request.host);
      const addresses =
        literal !== null
          ? [literal]
          : await resolveWithin(request.host, Math.min(options.lookupTimeoutMs, timeoutMs), request.signal);
      // Each address in the resolver's order, within the one connect timeout; the last failure is told.
      let failure: unknown;
      for (const address of addresses) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        try {
          return { socket: await connectTo(address, request.port, request, left), address };
        } catch (error) {
          failure = error;
          if (error instanceof ProbeFailure && error.code === 'aborted') throw error;
        }
      }
      throw (
        failure ??
        new ProbeFailure('timeout', `no connection to ${request.host}:${request.port} within ${timeoutMs} ms`)
      );
    },
  };
}
