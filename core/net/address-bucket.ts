import ipaddr from 'ipaddr.js';
import { canonicalIp } from './ip-address.ts';

/**
 * The identity a client address is throttled under: an IPv4 address as itself (IPv4-mapped IPv6
 * included, so IPv4 clients behind a dual-stack socket do not all share one bucket), an IPv6
 * address by its /64, the block one subscriber usually holds.
 */
export function addressBucket(address: string | null): string {
  const canonical = address === null ? null : canonicalIp(address);
  if (canonical === null) return 'unknown';
  // canonicalIp turns IPv4-mapped addresses into IPv4, so a colon means a real IPv6 address.
  if (!canonical.includes(':')) return canonical;
  const parts = ipaddr.IPv6.parse(canonical)
    .parts.slice(0, 4)
    .map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
