import { promises as dns } from 'node:dns';
import type { HostLookup } from './connector.ts';

/**
 * The default `HostLookup` (docs/engine.md, "Outbound safety"): the system's resolver (hosts file
 * included) when no DNS servers are configured, else A and AAAA asked of those servers. A name
 * that has neither fails with node:dns's code (`ENOTFOUND`, ...).
 */
export function systemLookup(servers: readonly string[], timeoutMs: number): HostLookup {
  if (servers.length === 0) {
    return async (hostname) =>
      (await dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
  }
  const resolver = new dns.Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs / 2)), tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length > 0) return addresses;
    // Neither family: the A query's failure says why (NXDOMAIN, SERVFAIL, a timeout).
    throw v4.status === 'rejected' ? v4.reason : new Error(`no address for ${hostname}`);
  };
}
