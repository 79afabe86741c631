import { promises as dns } from 'node:dns';
import type { DnsHealth } from './dns-health.ts';
import type { ZoneReply } from './classify.ts';

/**
 * What the DNSBL check asks names of: A records, or a rejection whose `code` is node:dns's
 * (`ENOTFOUND` for NXDOMAIN, `ENODATA`, `ESERVFAIL`, `EREFUSED`, `ETIMEOUT`, ...). A node:dns
 * `Resolver` is one; tests inject their own or point a real one at a fake server.
 */
export interface DnsblResolver {
  resolve4(name: string): Promise<string[]>;
  /**
   * The PTR records of a name (`4.3.2.1.in-addr.arpa`, `...ip6.arpa`): an IP target's reverse
   * DNS, shown as `rdns`. Optional: a resolver without it leaves `rdns` null. (A node:dns
   * Resolver's `reverse` is not used: it also reads the hosts file, and turns a timeout into
   * ENOTFOUND, which would read as "no name".)
   */
  resolvePtr?(name: string): Promise<string[]>;
}

/**
 * A node:dns Resolver on the given servers, or the system's when none are given (never a public
 * resolver of our choosing: the lists refuse those). c-ares retransmits once half-way through the
 * timeout; the caller's own deadline is what bounds the lookup.
 */
export function createDnsblResolver(servers: readonly string[], timeoutMs: number): dns.Resolver {
  const resolver = new dns.Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs / 2)), tries: 2 });
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}

/** The transport-level failures that say the server is not there, as opposed to an answer. */
const SILENT_CODES = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED']);

/**
 * Asks one name with a hard deadline, whatever the resolver does: a resolver that never settles
 * costs `timeoutMs`, not a stalled check. Never rejects: failures come back as their code.
 */
export function askWithDeadline(
  resolver: DnsblResolver,
  name: string,
  timeoutMs: number,
  health: DnsHealth,
): Promise<ZoneReply> {
  return withDeadline(() => resolver.resolve4(name), timeoutMs, health);
}

/** Asks for a name's PTR records as `askWithDeadline` asks for A records: `addresses` holds the names. */
export function askPtrWithDeadline(
  resolvePtr: (name: string) => Promise<string[]>,
  name: string,
  timeoutMs: number,
  health: DnsHealth,
): Promise<ZoneReply> {
  return withDeadline(() => resolvePtr(name), timeoutMs, health);
}

function withDeadline(ask: () => Promise<string[]>, timeoutMs: number, health: DnsHealth): Promise<ZoneReply> {
  return new Promise<ZoneReply>((resolve) => {
    let settled = false;
    const mark = health.sent();
    const timer = setTimeout(() => {
      settled = true;
      health.silent(mark, 'timeout');
      resolve({ code: 'ETIMEOUT' });
    }, timeoutMs);
    ask().then(
      (addresses) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        health.answered();
        resolve({ addresses });
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const code = (error as { code?: unknown }).code;
        const text = typeof code === 'string' ? code : 'dns_error';
        if (SILENT_CODES.has(text)) health.silent(mark, text === 'ECONNREFUSED' ? text : 'timeout');
        else health.answered();
        resolve({ code: text });
      },
    );
  });
}
