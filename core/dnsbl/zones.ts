/**
 * The DNSBL zones asked by default, and what a zone name may be (docs/engine.md, "Blacklist
 * monitors (DNSBL)"). Operators replace either list wholesale; a Spamhaus DQS key is used by
 * naming its zone, e.g. `<key>.zen.dq.spamhaus.net`. The API holds a monitor's `zones` to the same
 * lists the engine asks, so both read them from here.
 */

/** Zones asked for IP targets (v4 and v6). */
export const DEFAULT_DNSBL_ZONES: readonly string[] = [
  'zen.spamhaus.org',
  'bl.spamcop.net',
  'bl.mailspike.net',
  'psbl.surriel.com',
  'ix.dnsbl.manitu.net',
  'bl.spameatingmonkey.net',
];

/** Zones asked for domain targets. */
export const DEFAULT_DNSBL_DOMAIN_ZONES: readonly string[] = ['dbl.spamhaus.org', 'multi.uribl.com', 'multi.surbl.org'];

/** The zones an installation asks, by target type. */
export interface DnsblZoneLists {
  ip: readonly string[];
  domain: readonly string[];
}

/** One label: letters, digits, hyphens, and underscores (some feeds use them in key labels). */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * The zone in the form it is asked and reported (lower case, no trailing dot), or null when it is
 * no DNS name of two labels or more. An IP address is refused: every zone ends in a name.
 */
export function normalizeZone(input: string): string | null {
  let zone = input.trim().toLowerCase();
  if (zone.endsWith('.')) zone = zone.slice(0, -1);
  if (zone.length === 0 || zone.length > 200) return null;
  const labels = zone.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return null;
  return zone;
}

/** Normalises a list of zones, dropping repeats; throws a RangeError naming the first bad one. */
export function normalizeZones(zones: readonly string[], what: string): string[] {
  const out = new Set<string>();
  for (const zone of zones) {
    const normalized = normalizeZone(zone);
    if (normalized === null)
      throw new RangeError(`${what} must be a DNS zone name such as zen.spamhaus.org, not "${zone}"`);
    out.add(normalized);
  }
  return [...out];
}
