/**
 * Which address a request comes from (docs/contract.md §7): the connection's peer, unless that peer is a
 * trusted proxy, in which case the forwarding headers it appended are believed, hop by hop.
 */
import { canonicalIp } from './ip-address.ts';
import type { IpMatcher } from './ip-matcher.ts';

export interface HeaderReader {
  /** The header's value, several lines of it joined by commas, or null when absent. */
  get(name: string): string | null;
}

/** RFC 7239 node-port, or an obfuscated port; the port itself is of no use to us. */
const PORT = /^(?:[0-9]{1,5}|_[A-Za-z0-9._-]+)$/;
const OWS = /^[ \t]+|[ \t]+$/g;

/**
 * One hop of a forwarding header, as its canonical address, or null when it is not one
 * (`unknown`, an obfuscated `_hidden`, garbage). Accepted: `192.0.2.1`, `192.0.2.1:4711`,
 * `[2001:db8::1]`, `[2001:db8::1]:4711`, and a bare `2001:db8::1` (RFC 7239 wants brackets, but
 * some proxies omit them; with no port the reading is unambiguous).
 */
function parseNode(node: string): string | null {
  if (node.startsWith('[')) {
    const close = node.indexOf(']');
    if (close === -1) return null;
    const inner = node.slice(1, close);
    const rest = node.slice(close + 1);
    if (!inner.includes(':')) return null;
    if (rest !== '' && !(rest.startsWith(':') && PORT.test(rest.slice(1)))) return null;
    return canonicalIp(inner);
  }
  const whole = canonicalIp(node);
  if (whole !== null) return whole;
  const colon = node.indexOf(':');
  if (colon === -1 || node.indexOf(':', colon + 1) !== -1) return null;
  const host = node.slice(0, colon);
  if (!PORT.test(node.slice(colon + 1)) || host.includes(':')) return null;
  return canonicalIp(host);
}

/**
 * Splits on `separator` outside RFC 7230 quoted strings; null when a quote is left open, since
 * the pieces of a broken header cannot be told apart.
 */
function splitOutsideQuotes(text: string, separator: string): string[] | null {
  const pieces: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') {
      quoted = true;
    } else if (char === separator) {
      pieces.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) return null;
  pieces.push(text.slice(start));
  return pieces;
}

function unquote(value: string): string | null {
  if (!value.startsWith('"')) return value;
  if (value.length < 2 || !value.endsWith('"')) return null;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}

/** The `for=` value of one Forwarded element, unquoted; null when absent, repeated or malformed. */
function forParameter(element: string): string | null {
  const pairs = splitOutsideQuotes(element, ';');
  if (pairs === null) return null;
  let found: string | null = null;
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals === -1) continue;
    if (pair.slice(0, equals).replace(OWS, '').toLowerCase() !== 'for') continue;
    if (found !== null) return null;
    found = unquote(pair.slice(equals + 1).replace(OWS, ''));
    if (found === null) return null;
  }
  return found;
}

/**
 * The hops of a Forwarded header, left (farthest) to right (nearest), each an address or null.
 * Returns null when no element names a `for`, so that a Forwarded header that only carries
 * `proto=` or `by=` leaves the decision to X-Forwarded-For.
 */
function forwardedHops(header: string): (string | null)[] | null {
  const elements = splitOutsideQuotes(header, ',');
  // An unparseable header is one unusable hop: the walk stops at the proxy that sent it.
  if (elements === null) return [null];
  const values = elements.map(forParameter);
  if (values.every((value) => value === null)) return null;
  return values.map((value) => (value === null ? null : parseNode(value)));
}

function xForwardedForHops(header: string): (string | null)[] {
  return header.split(',').map((hop) => parseNode(hop.replace(OWS, '')));
}

function present(value: string | null): value is string {
  return value !== null && value.replace(OWS, '') !== '';
}

/**
 * A socket may report a link-local peer with its zone (`fe80::1%eth0`); the zone names our own
 * interface, not the client, so it is dropped. Other input is read strictly.
 */
function canonicalPeer(peer: string): string | null {
  const percent = peer.indexOf('%');
  return canonicalIp(percent !== -1 && peer.includes(':') ? peer.slice(0, percent) : peer);
}

/**
 * The request's client address, canonical (IPv4-mapped peers come back as IPv4), or null when
 * the peer address is unknown.
 *
 * Headers are read only when the peer matches `trustedProxies`; from anyone else they are
 * whatever the client chose to send. `Forwarded` wins over `X-Forwarded-For` when it names any
 * `for=`. So a trusted proxy that writes only X-Forwarded-For MUST remove a client-supplied
 * Forwarded header, or the client can name its own address.
 *
 * The hops are walked from the right (each trusted proxy appends the address it saw), skipping
 * trusted proxies; the first untrusted hop is the client. If every hop is trusted, the leftmost
 * is. A hop that is not an address (`unknown`, `_hidden`, garbage) stops the walk and the client
 * is taken to be the last trusted address seen, the nearest proxy that vouched for nothing
 * better: the hops left of it can no longer be tied to anyone trusted, and believing them would
 * let a client choose its own address simply by sending garbage first.
 */
export function clientIp(peer: string | null, headers: HeaderReader, trustedProxies: IpMatcher | null): string | null {
  if (peer === null) return null;
  const nearest = canonicalPeer(peer);
  if (nearest === null || trustedProxies === null || !trustedProxies.matches(nearest)) {
    return nearest;
  }

  const forwarded = headers.get('forwarded');
  let hops = present(forwarded) ? forwardedHops(forwarded) : null;
  if (hops === null) {
    const xff = headers.get('x-forwarded-for');
    if (!present(xff)) return nearest;
    hops = xForwardedForHops(xff);
  }

  let lastTrusted = nearest;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (hop === null || hop === undefined) return lastTrusted;
    if (!trustedProxies.matches(hop)) return hop;
    lastTrusted = hop;
  }
  return lastTrusted;
}
