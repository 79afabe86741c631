/**
 * Lists of addresses and CIDR blocks (key allow-lists, trusted proxies), parsed once and matched
 * on every request.
 */
import ipaddr from 'ipaddr.js';
import { canonicalIp } from './ip-address.ts';

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;
/** Where IPv4-mapped addresses start inside an IPv6 prefix (`::ffff:0:0/96`). */
const MAPPED_PREFIX_BITS = 96;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

interface Block {
  address: Address;
  bits: number;
}

/** Clears every bit past the prefix, so that `10.1.2.3/8` is stored and shown as `10.0.0.0/8`. */
function networkOf(address: Address, bits: number): Address {
  const bytes = address.toByteArray().map((byte, index) => {
    const keep = Math.max(0, Math.min(8, bits - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return ipaddr.fromByteArray(bytes);
}

function show(address: Address): string {
  return address instanceof ipaddr.IPv6 ? address.toRFC5952String() : address.toString();
}

/** `bits` is null for a bare address, which is shown without a prefix. */
interface Entry {
  address: Address;
  bits: number | null;
}

function format(entry: Entry): string {
  return entry.bits === null ? show(entry.address) : `${show(entry.address)}/${entry.bits}`;
}

function parseEntry(entry: string): Entry | null {
  const slash = entry.indexOf('/');
  const addressText = slash === -1 ? entry : entry.slice(0, slash);
  const canonical = canonicalIp(addressText);
  if (canonical === null) return null;
  const address = ipaddr.parse(canonical);
  if (slash === -1) return { address, bits: null };

  const prefixText = entry.slice(slash + 1);
  if (!PREFIX.test(prefixText)) return null;
  let bits = Number(prefixText);

  // canonicalIp folds an IPv4-mapped address to IPv4; its prefix was written in IPv6 terms.
  const writtenAsV6 = addressText.includes(':');
  if (writtenAsV6 && address instanceof ipaddr.IPv4) {
    if (bits > 128) return null;
    if (bits >= MAPPED_PREFIX_BITS) {
      bits -= MAPPED_PREFIX_BITS;
    } else {
      // A block wider than the mapped range is an IPv6 block; keep it as written.
      return { address: networkOf(address.toIPv4MappedAddress(), bits), bits };
    }
  }
  if (bits > (address.kind() === 'ipv4' ? 32 : 128)) return null;
  return { address: networkOf(address, bits), bits };
}

/**
 * The canonical form of an address or CIDR block, or null when it is not one. Addresses are read
 * strictly (see canonicalIp); host bits past the prefix are accepted and cleared; a bare address
 * stays bare and an explicit `/32` or `/128` stays explicit.
 */
export function normalizeCidr(entry: string): string | null {
  const parsed = parseEntry(entry);
  return parsed === null ? null : format(parsed);
}

export interface IpMatcher {
  /** Whether the address (as a socket reports it, IPv4-mapped or not) falls in any entry. */
  matches(address: string | null): boolean;
  /** The entries in canonical form. */
  readonly entries: readonly string[];
}

/**
 * Builds a matcher; throws TypeError naming the first invalid entry, so that a misconfigured
 * allow-list or proxy list fails loudly at start-up rather than silently matching nothing.
 *
 * Families are matched separately, on canonical addresses: an IPv4 client (also when its socket
 * reports `::ffff:a.b.c.d`) matches IPv4 entries and IPv6 entries of /96 or longer inside
 * `::ffff:0:0/96` (those are normalised to IPv4 entries); a wider IPv6 block such as `::/0` is
 * about IPv6 clients only. Zone ids (`fe80::1%eth0`) are not addresses here and match nothing.
 */
export function createIpMatcher(entries: readonly string[]): IpMatcher {
  const v4: Block[] = [];
  const v6: Block[] = [];
  const canonicalEntries: string[] = [];
  for (const entry of entries) {
    const parsed = typeof entry === 'string' ? parseEntry(entry) : null;
    if (parsed === null) {
      throw new TypeError(`Invalid IP address or CIDR block: ${JSON.stringify(entry)}`);
    }
    const { address } = parsed;
    const bits = parsed.bits ?? (address.kind() === 'ipv4' ? 32 : 128);
    (address.kind() === 'ipv4' ? v4 : v6).push({ address, bits });
    canonicalEntries.push(format(parsed));
  }
  const frozenEntries = Object.freeze(canonicalEntries);

  return {
    entries: frozenEntries,
    matches(address: string | null): boolean {
      if (typeof address !== 'string') return false;
      const canonical = canonicalIp(address);
      if (canonical === null) return false;
      const client = ipaddr.parse(canonical);
      const blocks = client.kind() === 'ipv4' ? v4 : v6;
      for (const block of blocks) {
        if (client.match(block.address, block.bits)) return true;
      }
      return false;
    },
  };
}
