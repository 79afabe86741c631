import { connect as netConnect, isIP } from 'node:net';
import { canonicalIp } from '../../core/net/ip-address.ts';
import { isForbiddenName, isPublicIp } from '../../core/targets/target-policy.ts';
import { ProbeFailure, type Connection, type Connector, type ConnectRequest, type HostLookup } from '../../engine/net/connector.ts';

/**
 * THE PROBE TESTS' OWN CONNECTOR, not the engine's guarded one (that one is the engine's and is
 * tested on its own). It keeps the contract the probes rely on: names are answered by an injected
 * lookup (no test asks a DNS server), every address is judged by the core's target policy unless
 * private targets are allowed, and the socket is connected to the judged address. At merge it can
 * be swapped for the real connector built with the same lookup.
 */
export interface TestProbeConnector extends Connector {
  /** Every connect asked of it, in order: tests check what a probe did (and did not) connect to. */
  readonly requests: ConnectRequest[];
}

export interface TestProbeConnectorOptions {
  lookup: HostLookup;
  allowPrivateTargets: boolean;
}

/** A lookup that answers every name with the given addresses. */
export function lookupAnswering(...addresses: string[]): HostLookup {
  return async () => addresses;
}

export function createTestProbeConnector(options: TestProbeConnectorOptions): TestProbeConnector {
  const requests: ConnectRequest[] = [];

  async function resolve(host: string): Promise<string[]> {
    const literal = isIP(host) === 0 ? null : canonicalIp(host);
    if (literal === null && !options.allowPrivateTargets && isForbiddenName(host)) {
      throw new ProbeFailure('forbidden_address', `${host} is a special-use name`);
    }
    const addresses = literal === null ? (await options.lookup(host)).map((a) => canonicalIp(a) ?? a) : [literal];
    if (addresses.length === 0) throw new ProbeFailure('dns_error', `${host} has no address`);
    if (!options.allowPrivateTargets && !addresses.every(isPublicIp)) {
      throw new ProbeFailure('forbidden_address', `${host} resolves to a non-public address`);
    }
    return addresses;
  }

  async function connect(request: ConnectRequest): Promise<Connection> {
    requests.push(request);
    const [address] = await resolve(request.host);
    if (address === undefined) throw new ProbeFailure('dns_error');
    const socket = netConnect({ host: address, port: request.port });
    return new Promise<Connection>((resolvePromise, reject) => {
      const fail = (error: Error) => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        socket.destroy();
        reject(error);
      };
      const onAbort = () => fail(new ProbeFailure('aborted'));
      const timer = setTimeout(() => fail(new ProbeFailure('timeout')), request.timeoutMs);
      if (request.signal?.aborted) onAbort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      socket.once('error', fail);
      socket.once('connect', () => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        socket.off('error', fail);
        resolvePromise({ socket, address });
      });
    });
  }

  return { requests, connect, resolve };
}
