/**
 * The default target policy of docs/contract.md §5: a monitor only probes what is publicly routable, so
 * the service cannot be pointed at its own network (SSRF). `allowPrivateTargets` lifts it.
 */
import ipaddr from 'ipaddr.js';
import { canonicalIp } from '../net/ip-address.ts';

interface SpecialRange {
  cidr: string;
  name: string;
}

/**
 * IANA IPv4 Special-Purpose Address Registry, plus multicast (RFC 5771), which has a registry of
 * its own. Taken whole, even where IANA marks a block "globally reachable" (192.0.0.9/32,
 * 192.31.196.0/24 ...): those are anycast infrastructure, never a customer's server.
 */
const SPECIAL_PURPOSE_IPV4: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', name: '"This network" (RFC 791)' },
  { cidr: '10.0.0.0/8', name: 'Private-Use (RFC 1918)' },
  { cidr: '100.64.0.0/10', name: 'Shared Address Space, CGNAT (RFC 6598)' },
  { cidr: '127.0.0.0/8', name: 'Loopback (RFC 1122)' },
  { cidr: '169.254.0.0/16', name: 'Link Local (RFC 3927)' },
  { cidr: '172.16.0.0/12', name: 'Private-Use (RFC 1918)' },
  { cidr: '192.0.0.0/24', name: 'IETF Protocol Assignments (RFC 6890)' },
  { cidr: '192.0.2.0/24', name: 'Documentation, TEST-NET-1 (RFC 5737)' },
  { cidr: '192.31.196.0/24', name: 'AS112-v4 (RFC 7535)' },
  { cidr: '192.52.193.0/24', name: 'AMT (RFC 7450)' },
  { cidr: '192.88.99.0/24', name: 'Deprecated 6to4 Relay Anycast (RFC 7526)' },
  { cidr: '192.168.0.0/16', name: 'Private-Use (RFC 1918)' },
  { cidr: '192.175.48.0/24', name: 'Direct Delegation AS112 Service (RFC 7534)' },
  { cidr: '198.18.0.0/15', name: 'Benchmarking (RFC 2544)' },
  { cidr: '198.51.100.0/24', name: 'Documentation, TEST-NET-2 (RFC 5737)' },
  { cidr: '203.0.113.0/24', name: 'Documentation, TEST-NET-3 (RFC 5737)' },
  { cidr: '224.0.0.0/4', name: 'Multicast (RFC 5771)' },
  { cidr: '240.0.0.0/4', name: 'Reserved (RFC 1112)' },
  { cidr: '255.255.255.255/32', name: 'Limited Broadcast (RFC 8190)' },
];

/**
 * IANA IPv6 Special-Purpose Address Registry, plus multicast (RFC 4291). Only global unicast
 * (2000::/3) is let through at all, so the entries outside it are here to be named and tested;
 * the ones inside it are what actually carves holes in 2000::/3.
 */
const SPECIAL_PURPOSE_IPV6: readonly SpecialRange[] = [
  { cidr: '::/128', name: 'Unspecified Address (RFC 4291)' },
  { cidr: '::1/128', name: 'Loopback Address (RFC 4291)' },
  { cidr: '::/96', name: 'Deprecated IPv4-compatible addresses (RFC 4291)' },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped Address (RFC 4291)' },
  { cidr: '64:ff9b::/96', name: 'IPv4-IPv6 Translation (RFC 6052)' },
  { cidr: '64:ff9b:1::/48', name: 'Local-use IPv4/IPv6 Translation (RFC 8215)' },
  { cidr: '100::/64', name: 'Discard-Only Address Block (RFC 6666)' },
  { cidr: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix' },
  { cidr: '2001::/23', name: 'IETF Protocol Assignments (RFC 2928)' },
  { cidr: '2001::/32', name: 'TEREDO (RFC 4380)' },
  { cidr: '2001:1::1/128', name: 'Port Control Protocol Anycast (RFC 7723)' },
  { cidr: '2001:1::2/128', name: 'TURN Anycast (RFC 8155)' },
  { cidr: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast (RFC 9665)' },
  { cidr: '2001:2::/48', name: 'Benchmarking (RFC 5180)' },
  { cidr: '2001:3::/32', name: 'AMT (RFC 7450)' },
  { cidr: '2001:4:112::/48', name: 'AS112-v6 (RFC 7535)' },
  { cidr: '2001:10::/28', name: 'Deprecated ORCHID (RFC 4843)' },
  { cidr: '2001:20::/28', name: 'ORCHIDv2 (RFC 7343)' },
  { cidr: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (RFC 9374)' },
  { cidr: '2001:db8::/32', name: 'Documentation (RFC 3849)' },
  { cidr: '2002::/16', name: '6to4 (RFC 3056)' },
  { cidr: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service (RFC 7534)' },
  { cidr: '3fff::/20', name: 'Documentation (RFC 9637)' },
  { cidr: '5f00::/16', name: 'Segment Routing (SRv6) SIDs (RFC 9602)' },
  { cidr: 'fc00::/7', name: 'Unique-Local (RFC 4193)' },
  { cidr: 'fe80::/10', name: 'Link-Local Unicast (RFC 4291)' },
  { cidr: 'fec0::/10', name: 'Deprecated Site-Local (RFC 3879)' },
  { cidr: 'ff00::/8', name: 'Multicast (RFC 4291)' },
];

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

const V4_BLOCKS = SPECIAL_PURPOSE_IPV4.map(({ cidr }) => ipaddr.IPv4.parseCIDR(cidr));
const V6_BLOCKS = SPECIAL_PURPOSE_IPV6.map(({ cidr }) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * Whether an address is publicly routable: outside every special-purpose range, and for IPv6
 * inside global unicast. Anything that is not a strictly written address is not public.
 */
export function isPublicIp(canonical: string): boolean {
  const text = canonicalIp(canonical);
  if (text === null) return false;
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') {
    return !V4_BLOCKS.some((block) => address.match(block));
  }
  return address.match(GLOBAL_UNICAST) && !V6_BLOCKS.some((block) => address.match(block));
}

/**
 * Special-use names (RFC 6761, RFC 6762, RFC 8375, ICANN's `.internal`) that never resolve to a
 * public host; the name itself is refused as well as everything under it.
 */
const FORBIDDEN_SUFFIXES: readonly string[] = [
  'localhost',
  'local',
  'internal',
  'test',
  'invalid',
  'example',
  'home.arpa',
];

/** Whether a normalised (lower-case, ASCII) domain is one of the special-use names. */
export function isForbiddenName(domain: string): boolean {
  // Cheap to repeat, and a caller that skipped normalisation must not slip past.
  let name = domain.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  return FORBIDDEN_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}
