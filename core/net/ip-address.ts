/**
 * Strict reading of IP address text.
 *
 * ipaddr.js does the arithmetic, but it is deliberately lenient (it accepts the inet_aton forms
 * `127.1`, `0x7f.0.0.1`, `0177.0.0.1`, `2130706433`, zone ids, and reads `::1.2.3.4` as
 * `::ffff:1.2.3.4`). Two addresses that different parsers read differently are how SSRF filters
 * and allow-lists get bypassed (CVE-2021-28918, CVE-2023-42282, CVE-2024-29415), so every string
 * is first held to the RFC 791 dotted quad / RFC 4291 grammar here and only then handed over.
 */
import ipaddr from 'ipaddr.js';

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const DOTTED_QUAD = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`: nothing longer can be an address. */
const MAX_TEXT_LENGTH = 45;

function strictIpv6(input: string): ipaddr.IPv6 | null {
  const lastColon = input.lastIndexOf(':');
  if (lastColon === -1) return null;

  // A trailing dotted quad is rewritten as its two hex groups so that ipaddr.js never applies its
  // own (non-RFC) reading of it; `::127.0.0.1` thus stays the IPv4-compatible `::7f00:1`.
  let text = input;
  const tail = input.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!DOTTED_QUAD.test(tail)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    const high = ((a << 8) | b).toString(16);
    const low = ((c << 8) | d).toString(16);
    text = `${input.slice(0, lastColon + 1)}${high}:${low}`;
  }

  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  // An empty group here is a stray single colon (`:1::`, `1:::2`), which RFC 4291 does not allow.
  if (!groups.every((group) => HEX_GROUP.test(group))) return null;
  // `::` stands for at least one zero group, so a compressed address has at most seven.
  if (halves.length === 2 ? groups.length > 7 : groups.length !== 8) return null;

  try {
    return ipaddr.IPv6.parse(text);
  } catch {
    return null;
  }
}

/**
 * The canonical text of a strictly written IPv4 or IPv6 address, or null.
 * IPv6 comes back in RFC 5952 form; an IPv4-mapped IPv6 address comes back as its IPv4 address,
 * because it is the same host and allow-lists and target policy must not see two spellings.
 */
export function canonicalIp(input: string): string | null {
  if (input.length === 0 || input.length > MAX_TEXT_LENGTH) return null;
  // The pattern admits only the canonical spelling, so the input already is the answer.
  if (DOTTED_QUAD.test(input)) return input;
  const v6 = strictIpv6(input);
  if (v6 === null) return null;
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toRFC5952String();
}

/**
 * Whether the text is an IP address in any form a lenient parser (ipaddr.js, inet_aton, the
 * WHATWG URL host parser) would take as one, brackets and a trailing dot included. It exists to
 * refuse such strings where a domain name is expected, so it errs on the side of "yes".
 */
/** Characters no IPv4 form has (decimal, octal, hex): any of them, and no colon, means a name. */
const NOT_IPV4_TEXT = /[^0-9a-fA-FxX.]/;

export function isIpLiteral(input: string): boolean {
  // Most inputs are host names: decide those without ipaddr.js, whose parsers throw to say no.
  if (!input.includes(':') && !input.startsWith('[') && NOT_IPV4_TEXT.test(input)) return false;
  let text = input;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  // The URL host parser drops one trailing dot before reading a host as IPv4 (`127.0.0.1.`).
  if (text.endsWith('.') && !text.includes(':')) text = text.slice(0, -1);
  return canonicalIp(text) !== null || ipaddr.isValid(text);
}
