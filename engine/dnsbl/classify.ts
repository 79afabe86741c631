import { isSpamhausDbl, isUribl } from './zones.ts';

/** What the resolver said for one zone: its A records, or a node:dns error code (`ENOTFOUND`, ...). */
export type ZoneReply = { addresses: readonly string[] } | { code: string };

/** One zone's verdict, as its result row shows it. */
export interface ZoneVerdict {
  /** The zone answered (listed or not); false when its lookup failed. */
  ok: boolean;
  listed: boolean;
  /** The A records, comma-joined; null when there were none. */
  answer: string | null;
  /** Why the lookup failed; null when ok. */
  error: string | null;
}

/**
 * The `error` of a zone that answered with a code meaning "not for you": the query came through a
 * public resolver, went over the free quota, or was malformed. The answer is kept on the row.
 */
export const REFUSED_BY_LIST = 'refused_by_list';
/** The `error` of a zone that answered outside 127.0.0.0/8: a wildcard or a hijacking resolver. */
export const UNEXPECTED_ANSWER = 'unexpected_answer';
/** The `error` of a zone whose lookup got no answer in time. */
export const TIMEOUT = 'timeout';

const NOT_LISTED: ZoneVerdict = { ok: true, listed: false, answer: null, error: null };

/**
 * The answers that mean the zone refused or could not read the query (docs/engine.md, "Blacklist monitors (DNSBL)").
 */
function isRefusalCode(zone: string, address: string): boolean {
  // 127.255.255.0/24: Spamhaus's (and others') "typo", "public resolver", "over quota" family.
  if (address.startsWith('127.255.255.')) return true;
  if (address === '127.0.1.255' && isSpamhausDbl(zone)) return true;
  return address === '127.0.0.1' && isUribl(zone);
}

/** Whether an A record is a dotted quad in 127.0.0.0/8, the range DNSBLs answer in. */
function isLoopbackV4(address: string): boolean {
  return /^127\.(?:[0-9]{1,3}\.){2}[0-9]{1,3}$/.test(address);
}

/** Classifies one zone's reply (docs/engine.md, "Blacklist monitors (DNSBL)"). */
export function classifyReply(zone: string, reply: ZoneReply): ZoneVerdict {
  if ('code' in reply) {
    // NXDOMAIN and NODATA: the zone has nothing on the target.
    if (reply.code === 'ENOTFOUND' || reply.code === 'ENODATA') return NOT_LISTED;
    if (reply.code === 'ETIMEOUT' || reply.code === 'ECANCELLED')
      return { ok: false, listed: false, answer: null, error: TIMEOUT };
    return { ok: false, listed: false, answer: null, error: reply.code };
  }
  if (reply.addresses.length === 0) return NOT_LISTED;
  const answer = reply.addresses.join(',');
  // One odd record spoils the answer: a listing cannot be told apart from a refusal beside it.
  for (const address of reply.addresses) {
    if (!isLoopbackV4(address)) return { ok: false, listed: false, answer, error: UNEXPECTED_ANSWER };
    if (isRefusalCode(zone, address)) return { ok: false, listed: false, answer, error: REFUSED_BY_LIST };
  }
  return { ok: true, listed: true, answer, error: null };
}
