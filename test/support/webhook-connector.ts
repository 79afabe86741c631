/**
 * THE WEBHOOK TESTS' OWN CONNECTOR, a stand-in for the engine's guarded connector (written in
 * parallel) until the merge, when these tests should take the real one instead. It does what
 * docs/engine.md, "Outbound safety" asks, in the fewest lines: names answered by an injected
 * lookup (no test asks a real DNS server), every address judged by the core target policy,
 * connection only to an address that passed, with no second resolution.
 */
import { connect, isIP, type Socket } from 'node:net';
import { ProbeFailure, type Connection, type ConnectRequest, type Connector, type HostLookup } from '../../engine/net/connector.ts';
import { isPublicIp } from '../../core/targets/target-policy.ts';
import { canonicalIp } from '../../core/net/ip-address.ts';

export interface TestConnectorOptions {
  /** Answers names; an IP literal is used as it is. */
  lookup: HostLookup;
  allowPrivateTargets?: boolean;
}

export function createTestConnector(options: TestConnectorOptions): Connector {
  async function resolve(host: string): Promise<string[]> {
    const addresses = isIP(host) !== 0 ? [host] : await options.lookup(host);
    if (addresses.length === 0) throw new ProbeFailure('dns_error', `${host} has no address`);
    // Every address must pass, so a name cannot smuggle a private address in beside public ones.
    const judged = addresses.map((a) => canonicalIp(a) ?? a);
    if (options.allowPrivateTargets !== true && !judged.every((a) => isPublicIp(a))) {
      throw new ProbeFailure('forbidden_address', `${host} resolves to an address that is not public`);
    }
    return judged;
  }

  return {
    resolve,
    async connect(request: ConnectRequest): Promise<Connection> {
      const [address] = await resolve(request.host);
      const socket = await new Promise<Socket>((done, fail) => {
        const s = connect({ host: address!, port: request.port, timeout: request.timeoutMs });
        s.once('connect', () => {
          s.setTimeout(0);
          done(s);
        });
        s.once('timeout', () => {
          s.destroy();
          fail(new ProbeFailure('timeout'));
        });
        s.once('error', (error: NodeJS.ErrnoException) => fail(new ProbeFailure(error.code ?? 'connect_failed', error.message, { cause: error })));
      });
      return { socket, address: address! };
    },
  };
}
