/**
 * What each default DNSBL zone's answers mean (docs/engine.md, "Blacklist monitors (DNSBL)"): its
 * name, operator, where to look a listing up or ask for its removal, and each return code its
 * documentation names, with whether the code is a policy listing (an address range whose owner
 * says it should not send mail directly: a statement about the range, not a sign of spam).
 *
 * The refusal codes (127.255.255.x, DBL's 127.0.1.255, URIBL's 127.0.0.1) are not listings and
 * are not here: classify.ts turns them into `refused_by_list` errors.
 *
 * An operator may describe more zones, or override these, with `--dnsbl-zone-info FILE`, in the
 * shape of `DnsblZoneInfo` (engine/dnsbl/zone-info.ts).
 */

/** One return code's meaning. */
export interface DnsblCode {
  meaning: string;
  /** A policy listing: mail receivers treat it as where the address may send from, not as spam. */
  policy: boolean;
}

/** One zone's catalogue entry. */
export interface DnsblZoneInfo {
  name: string;
  operator: string;
  /** Where to look a listing up and ask for its removal; null when the list has no such page. */
  delist_url: string | null;
  /** By answer (`127.0.0.2`). For a bitmask zone, by bit (`127.0.0.8` is the bit 8 of the last octet). */
  codes: Readonly<Record<string, DnsblCode>>;
  /** The last octet of an answer is a sum of codes, one bit per sub-list (URIBL, SURBL). */
  bitmask?: boolean;
}

const SPAMHAUS_CHECK = 'https://check.spamhaus.org/';

/** The default zones' entries, by zone name. */
export const DNSBL_CATALOGUE: Readonly<Record<string, DnsblZoneInfo>> = {
  // Spamhaus's zone table, "Available Zones":
  // https://docs.spamhaus.com/datasets/docs/source/10-data-type-documentation/datasets/040-zones.html
  // The PBL's policy nature: https://www.spamhaus.org/faq/section/DNSBL%2520Usage
  'zen.spamhaus.org': {
    name: 'Spamhaus ZEN',
    operator: 'Spamhaus',
    delist_url: SPAMHAUS_CHECK,
    codes: {
      '127.0.0.2': { meaning: 'SBL: a spam source or spam operation verified by Spamhaus', policy: false },
      '127.0.0.3': { meaning: 'SBL CSS: a low-reputation (snowshoe) sender, listed automatically', policy: false },
      '127.0.0.4': { meaning: 'XBL: a host showing signs of compromise (malware, botnet, open proxy)', policy: false },
      '127.0.0.9': { meaning: 'DROP: a network hijacked or run by criminals (listed in the SBL too)', policy: false },
      '127.0.0.10': {
        meaning: 'PBL: a range its ISP says should not send mail directly (policy, not spam)',
        policy: true,
      },
      '127.0.0.11': {
        meaning: 'PBL: a range Spamhaus says should not send mail directly (policy, not spam)',
        policy: true,
      },
      '127.0.0.30': { meaning: 'BCL: a botnet command-and-control server', policy: false },
    },
  },
  // The same page, "dbl".
  'dbl.spamhaus.org': {
    name: 'Spamhaus DBL',
    operator: 'Spamhaus',
    delist_url: SPAMHAUS_CHECK,
    codes: {
      '127.0.1.2': { meaning: 'a low-reputation domain (spam)', policy: false },
      '127.0.1.4': { meaning: 'a phishing domain', policy: false },
      '127.0.1.5': { meaning: 'a malware domain', policy: false },
      '127.0.1.6': { meaning: 'a botnet command-and-control domain', policy: false },
      '127.0.1.102': { meaning: 'an abused legitimate domain (spam)', policy: false },
      '127.0.1.103': { meaning: 'an abused legitimate redirector or URL shortener', policy: false },
      '127.0.1.104': { meaning: 'an abused legitimate domain used in phishing', policy: false },
      '127.0.1.105': { meaning: 'an abused legitimate domain used by malware', policy: false },
      '127.0.1.106': { meaning: 'an abused legitimate domain hosting botnet command and control', policy: false },
    },
  },
  // https://www.spamcop.net/bl.shtml: an address that sent reported mail, delisted when reports stop.
  'bl.spamcop.net': {
    name: 'SpamCop Blocking List',
    operator: 'SpamCop',
    delist_url: 'https://www.spamcop.net/bl.shtml',
    codes: {
      '127.0.0.2': {
        meaning: 'sent mail that SpamCop users reported as spam; the listing ends on its own once reports stop',
        policy: false,
      },
    },
  },
  // http://mailspike.org/usage.html: bl.mailspike.net answers 127.0.0.2 (z.mailspike.net, a spam
  // wave) or the rep.mailspike.net code of levels L5 to L3 (127.0.0.10 to .12); the levels' names
  // and the lookup and delisting page: https://mailspike.io/ip_verify/about
  'bl.mailspike.net': {
    name: 'Mailspike Blacklist',
    operator: 'Mailspike',
    delist_url: 'https://mailspike.io/ip_verify',
    codes: {
      '127.0.0.2': { meaning: 'took part in a distributed spam wave', policy: false },
      '127.0.0.10': { meaning: 'reputation L5: the worst', policy: false },
      '127.0.0.11': { meaning: 'reputation L4: very bad', policy: false },
      '127.0.0.12': { meaning: 'reputation L3: bad', policy: false },
    },
  },
  // http://psbl.surriel.com/howto/ and https://psbl.org/: listed when it mails a spam trap;
  // anyone may remove an address.
  'psbl.surriel.com': {
    name: 'Passive Spam Block List (PSBL)',
    operator: 'Rik van Riel (surriel.com)',
    delist_url: 'https://psbl.org/remove',
    codes: {
      '127.0.0.2': { meaning: 'sent mail to a PSBL spam trap', policy: false },
    },
  },
  // https://help.returnpath.com/hc/en-us/articles/222485788-NiX-Spam-blacklist: listed by its spam
  // traps, removed 12 hours after the last spam. The list has ceased and answers NXDOMAIN for every
  // address (https://heise.de/-10248714); its entry stays while it is a default zone.
  'ix.dnsbl.manitu.net': {
    name: 'NiX Spam',
    operator: 'manitu (for iX magazine)',
    delist_url: 'https://www.dnsbl.manitu.net/',
    codes: {
      '127.0.0.2': {
        meaning: 'sent mail to the NiX Spam traps; the listing ends 12 hours after the last spam',
        policy: false,
      },
    },
  },
  // http://spameatingmonkey.com/lists.html, "SEM-BLACK": spam-trap hits and the list's own policy
  // listings share one code, so neither can be told apart.
  'bl.spameatingmonkey.net': {
    name: 'Spam Eating Monkey SEM-BLACK',
    operator: 'SpamEatingMonkey.com',
    delist_url: 'https://spameatingmonkey.com/lookup',
    codes: {
      '127.0.0.2': { meaning: 'sent mail to Spam Eating Monkey traps, or is listed by its policy', policy: false },
    },
  },
  // https://www.uribl.com/about.shtml (the lists, and the lookup page where delisting is asked)
  // and https://uribl.com/refused.shtml (multi is a bitmask of the last octet; 1 is a refusal).
  // The bits, as SpamAssassin and rspamd read them: 2 black, 4 grey, 8 red.
  'multi.uribl.com': {
    name: 'URIBL multi',
    operator: 'URIBL',
    delist_url: 'https://admin.uribl.com/',
    bitmask: true,
    codes: {
      '127.0.0.2': { meaning: 'URIBL black: a domain used by spammers', policy: false },
      '127.0.0.4': { meaning: 'URIBL grey: a domain seen in bulk mail that may also be legitimate', policy: false },
      '127.0.0.8': { meaning: 'URIBL red: a young or WHOIS-private domain seen in mail (automated)', policy: false },
    },
  },
  // SURBL's list page, as found at https://pipelinedata.tilda.ws/surbl (a copy of surbl.org/lists):
  // multi is a bitmask of the last octet: 8 PH, 16 MW, 64 ABUSE, 128 CR.
  'multi.surbl.org': {
    name: 'SURBL multi',
    operator: 'SURBL',
    delist_url: 'https://surbl.org/surbl-analysis',
    bitmask: true,
    codes: {
      '127.0.0.8': { meaning: 'PH: a phishing site', policy: false },
      '127.0.0.16': { meaning: 'MW: a malware site', policy: false },
      '127.0.0.64': { meaning: 'ABUSE: a spam or abuse site', policy: false },
      '127.0.0.128': { meaning: 'CR: a cracked (compromised) site', policy: false },
    },
  },
};

/** The catalogue name behind a Spamhaus DQS zone (`<key>.zen.dq.spamhaus.net`), whose codes are the public zone's. */
function dqsTwin(zone: string): string | undefined {
  if (zone.endsWith('.zen.dq.spamhaus.net')) return 'zen.spamhaus.org';
  if (zone.endsWith('.dbl.dq.spamhaus.net')) return 'dbl.spamhaus.org';
  return undefined;
}

/** What is known of a zone: the operator's own description first, then the catalogue. */
export function zoneInfo(
  zone: string,
  operatorInfo: Readonly<Record<string, DnsblZoneInfo>>,
): DnsblZoneInfo | undefined {
  const own = operatorInfo[zone];
  if (own !== undefined) return own;
  const entry = DNSBL_CATALOGUE[zone];
  if (entry !== undefined) return entry;
  const twin = dqsTwin(zone);
  return twin === undefined ? undefined : DNSBL_CATALOGUE[twin];
}

/** A listing's reading: what it means, whether it is a policy listing, where to have it removed. */
export interface ListingReading {
  meaning: string | null;
  policy: boolean;
  delist_url: string | null;
}

const UNKNOWN: ListingReading = { meaning: null, policy: false, delist_url: null };

/** The codes an answer carries: itself, or for a bitmask zone each bit set in its last octet. */
function codesOf(address: string, bitmask: boolean): string[] {
  if (!bitmask) return [address];
  const octets = address.split('.');
  const last = Number(octets[3]);
  const prefix = octets.slice(0, 3).join('.');
  const codes: string[] = [];
  for (let bit = 1; bit <= 128; bit *= 2) if ((last & bit) !== 0) codes.push(`${prefix}.${bit}`);
  return codes;
}

/**
 * Reads a listing's A records against what is known of its zone. The meanings of the known codes
 * are joined with "; "; null when none is known. A listing is a policy one only when every code
 * is known and a policy code: an unknown code might be anything, so it counts.
 */
export function readListing(addresses: readonly string[], info: DnsblZoneInfo | undefined): ListingReading {
  if (info === undefined) return UNKNOWN;
  const meanings: string[] = [];
  let policy = true;
  for (const address of addresses) {
    for (const code of codesOf(address, info.bitmask === true)) {
      const known = info.codes[code];
      if (known === undefined) {
        policy = false;
        continue;
      }
      if (!meanings.includes(known.meaning)) meanings.push(known.meaning);
      if (!known.policy) policy = false;
    }
  }
  return {
    meaning: meanings.length === 0 ? null : meanings.join('; '),
    policy: meanings.length > 0 && policy,
    delist_url: info.delist_url,
  };
}
