import { createGuardedConnector } from '../../engine/net/guarded-connector.ts';
import type { Connector, HostLookup } from '../../engine/net/connector.ts';

export interface TestConnectorOptions {
  /** Answers names (no test asks a real DNS server); an IP literal is used as it is. */
  lookup: HostLookup;
  allowPrivateTargets?: boolean;
}

/** The engine's real guarded connector, with names answered by the test's lookup. */
export function createTestConnector(options: TestConnectorOptions): Connector {
  return createGuardedConnector({ ...options, lookupTimeoutMs: 1_000 });
}
