import type { Connector } from './net/connector.ts';
import type { DnsblCheckContext } from './dnsbl/check-blacklist.ts';
import { DnsHealth } from './dnsbl/dns-health.ts';
import { createDnsblResolver } from './dnsbl/resolver.ts';
import type { EngineLogger } from './logger.ts';
import { createGuardedConnector } from './net/guarded-connector.ts';
import { createCanaryResolver, ResolverCanary } from './net/resolver-canary.ts';
import { systemLookup } from './net/system-lookup.ts';
import type { ResolvedEngineOptions } from './options.ts';

/** How the engine reaches out: names, DNSBL zones and connections, all through one view of the resolver. */
export interface Outbound {
  /** The resolver's health, shared by DNSBL lookups and device name lookups alike. */
  health: DnsHealth;
  /** What a blacklist check asks through. */
  dnsbl: DnsblCheckContext;
  /** The guarded connector (docs/engine.md, "Outbound safety"): webhooks go out through it as the host routes them. */
  connector: Connector;
  /** The same for probes, which leave from the location's own address when told. */
  probeConnector: Connector;
}

/** The engine's resolvers, their health and canary, and its guarded connectors, from its options. */
export function outbound(resolved: ResolvedEngineOptions, logger: EngineLogger): Outbound {
  const { clock } = resolved;
  const defaultResolver =
    resolved.resolver === undefined ? createDnsblResolver(resolved.dnsServers, resolved.dnsTimeoutMs) : undefined;
  const servers =
    resolved.dnsServers.length > 0 ? resolved.dnsServers : (defaultResolver?.getServers() ?? ['(injected resolver)']);
  const health = new DnsHealth(servers.join(', '), logger, clock);
  // The canary asks the servers the engine's own lookups go to, so it serves only those: a lookup
  // or resolver of a host's own is asked nothing else (and a test's never reaches a real server).
  const canary =
    resolved.lookup === undefined || resolved.resolver === undefined
      ? new ResolverCanary(createCanaryResolver(resolved.dnsServers, resolved.dnsTimeoutMs), health)
      : undefined;
  const dnsbl = {
    resolver: resolved.resolver ?? defaultResolver!,
    health,
    ...(resolved.resolver === undefined ? { canary } : {}),
    retryDelayS: resolved.retryDelayS,
    clock,
    zones: { ip: resolved.dnsblZones, domain: resolved.dnsblDomainZones },
    zoneInfo: resolved.dnsblZoneInfo,
    dnsTimeoutMs: resolved.dnsTimeoutMs,
    queriesPerCheck: resolved.dnsQueriesPerCheck,
    random: resolved.random,
  };
  const connectorOptions = {
    lookup: resolved.lookup ?? systemLookup(resolved.dnsServers, resolved.dnsTimeoutMs),
    allowPrivateTargets: resolved.allowPrivateTargets,
    lookupTimeoutMs: resolved.dnsTimeoutMs,
    resolverHealth: health,
    ...(resolved.lookup === undefined ? { resolverCanary: canary } : {}),
  };
  const connector = createGuardedConnector(connectorOptions);
  const probeConnector =
    resolved.probeSourceAddress === undefined
      ? connector
      : createGuardedConnector({ ...connectorOptions, localAddress: resolved.probeSourceAddress });
  return { health, dnsbl, connector, probeConnector };
}
