import ipaddr from 'ipaddr.js';

/**
 * The identity a client address is throttled under: an IPv4 address as itself (IPv4-mapped IPv6
 * included, so every IPv4 client does not share one bucket), an IPv6 address by its /64, the
 * block one subscriber usually holds.
 */
export function addressBucket(address: string | null): string {
  if (address === null || !ipaddr.isValid(address)) return 'unknown';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
