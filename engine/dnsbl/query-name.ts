import ipaddr from 'ipaddr.js';
import type { BlacklistMonitor } from '../../core/index.ts';

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
/** Four decimal octets without leading zeros: exactly the IPv4 text ipaddr.js reads as written. */
const DOTTED_QUAD = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

/**
 * The name asked of a zone for a target (docs/engine.md, "Blacklist monitors (DNSBL)"): IPv4
 * `a.b.c.d` as `d.c.b.a.<zone>`, IPv6 as its 32 nibbles reversed and dot-joined, a domain as
 * `<domain>.<zone>`. The zone is appended by the caller; this is the part before it.
 */
export function queryPrefix(target: Pick<BlacklistMonitor, 'target_type' | 'target_value'>): string {
  if (target.target_type === 'domain') return target.target_value;
  // The API stores IPv4 targets as plain dotted quads: those are reversed as text, a check's
  // cheapest step instead of a full parse. Anything else (IPv6, a zero-led octet) is parsed.
  const quad = DOTTED_QUAD.exec(target.target_value);
  if (quad !== null) return `${quad[4]}.${quad[3]}.${quad[2]}.${quad[1]}`;
  const address = ipaddr.parse(target.target_value);
  if (address.kind() === 'ipv4') return address.toByteArray().reverse().join('.');
  const nibbles: string[] = [];
  for (const byte of address.toByteArray()) nibbles.push((byte >> 4).toString(16), (byte & 15).toString(16));
  return nibbles.reverse().join('.');
}

/**
 * Which zones a target is asked in: domains in the domain zones only, IPs in the IP zones only,
 * and of those only the monitor's own `zones` when it names some (a zone the operator no longer
 * configures is not asked).
 */
export function zonesFor(
  target: Pick<BlacklistMonitor, 'target_type' | 'zones'>,
  zones: { ip: readonly string[]; domain: readonly string[] },
): readonly string[] {
  const configured = target.target_type === 'domain' ? zones.domain : zones.ip;
  if (target.zones === null) return configured;
  const chosen = new Set(target.zones);
  return configured.filter((zone) => chosen.has(zone));
}
