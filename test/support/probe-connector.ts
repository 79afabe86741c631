import { createGuardedConnector } from '../../engine/net/guarded-connector.ts';
import type { Connection, ConnectRequest, Connector, HostLookup } from '../../engine/net/connector.ts';

/**
 * The engine's real guarded connector, with names answered by the test's own lookup (no test asks
 * a DNS server), recording every connect it is asked for so a test can check what a probe did
 * (and did not) connect to.
 */
export interface TestProbeConnector extends Connector {
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
  const guarded = createGuardedConnector({ ...options, lookupTimeoutMs: 1_000 });
  const requests: ConnectRequest[] = [];
  return {
    requests,
    resolve: (host) => guarded.resolve(host),
    connect(request): Promise<Connection> {
      requests.push(request);
      return guarded.connect(request);
    },
  };
}
