// The default zones and zone names live in the core: the API holds a monitor's `zones` to them.
export { DEFAULT_DNSBL_DOMAIN_ZONES, DEFAULT_DNSBL_ZONES, normalizeZone, normalizeZones } from '../../core/internal.ts';

/** Spamhaus DBL, public (`dbl.spamhaus.org`) or through DQS (`<key>.dbl.dq.spamhaus.net`). */
export function isSpamhausDbl(zone: string): boolean {
  return zone === 'dbl.spamhaus.org' || zone.endsWith('.dbl.spamhaus.org') || zone.endsWith('.dbl.dq.spamhaus.net');
}

/** URIBL's zones (`multi.uribl.com`, `black.uribl.com`, ...). */
export function isUribl(zone: string): boolean {
  return zone === 'uribl.com' || zone.endsWith('.uribl.com');
}
