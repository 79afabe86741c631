import {
  toTimestamp,
  type BlacklistCheckOutcome,
  type BlacklistMonitor,
  type BlacklistStatus,
  type ClaimedBlacklistMonitor,
  type Clock,
  type DnsblListing,
  type NewDnsblResult,
  type Timestamp,
} from '../../core/internal.ts';
import { nextCheckAt } from '../scheduler/next-check.ts';
import { blacklistEvents, counts, type BlacklistCheckChange } from './blacklist-events.ts';
import { readListing, zoneInfo, type DnsblZoneInfo } from './catalogue.ts';
import { classifyReply, type ZoneReply } from './classify.ts';
import type { DnsHealth } from './dns-health.ts';
import { queryPrefix, zonesFor } from './query-name.ts';
import { RESOLVER_UNAVAILABLE, RESOLVER_UNREACHABLE } from '../our-failures.ts';
import { askPtrWithDeadline, askWithDeadline, type DnsblResolver } from './resolver.ts';

/** What a blacklist check needs besides the record: the engine builds one for all checks. */
export interface DnsblCheckContext {
  resolver: DnsblResolver;
  health: DnsHealth;
  clock: Clock;
  zones: { ip: readonly string[]; domain: readonly string[] };
  /** The operator's descriptions of zones (`--dnsbl-zone-info`), before the catalogue's. */
  zoneInfo: Readonly<Record<string, DnsblZoneInfo>>;
  /** Each lookup's deadline. */
  dnsTimeoutMs: number;
  /** Lookups of one check in flight at once. */
  queriesPerCheck: number;
  random: () => number;
  /** Seconds before a check the resolver failed is made again (the engine's retry delay). */
  retryDelayS: number;
}

/** How a zone's lookup fails when nothing answered it: the resolver's way, not the list's. */
const UNANSWERED = new Set(['timeout', 'ECONNREFUSED']);

/** One zone's row, with the A records it answered (for reading a listing's codes). */
interface ZoneOutcome {
  row: NewDnsblResult;
  addresses: readonly string[];
}

/**
 * One blacklist check (docs/engine.md, "Blacklist monitors (DNSBL)"): the target asked in each of
 * its zones, a result row per zone, the reverse DNS of an IP target, and the record's next state.
 * Never rejects on DNS trouble: a zone that fails is an `error` row and a name in `failed_zones`.
 */
export async function checkBlacklistMonitor(
  claimed: ClaimedBlacklistMonitor,
  context: DnsblCheckContext,
): Promise<BlacklistCheckOutcome> {
  const monitor = claimed.record;
  const zones = zonesFor(monitor, context.zones);
  const prefix = queryPrefix(monitor);
  const outcomes: ZoneOutcome[] = new Array<ZoneOutcome>(zones.length);

  let next = 0;
  const askNext = async (): Promise<void> => {
    while (next < zones.length) {
      const index = next++;
      const zone = zones[index]!;
      const started = performance.now();
      const reply = await askWithDeadline(context.resolver, `${prefix}.${zone}`, context.dnsTimeoutMs, context.health);
      const verdict = classifyReply(zone, reply);
      outcomes[index] = {
        row: {
          // toTimestamp caches the text per millisecond: lookups ending together share it.
          checked_at: toTimestamp(context.clock.now()),
          probe: 'dnsbl',
          ok: verdict.ok,
          response_ms: Math.round(performance.now() - started),
          error: verdict.error,
          zone,
          listed: verdict.listed,
          answer: verdict.answer,
          meaning: null,
          policy: false,
          delist_url: null,
          since: null,
        },
        addresses: 'addresses' in reply ? reply.addresses : [],
      };
    }
  };
  const askers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(context.queriesPerCheck, zones.length); i++) askers.push(askNext());
  const reverse = monitor.target_type === 'ip' ? reverseName(monitor, prefix, context) : Promise.resolve(null);
  await Promise.all(askers);
  const rdns = await reverse;
  // No zone answered, because the resolver is unreachable or down (several lookups in a row got
  // no answer): the worker's failure, said so on each row, and the monitor is checked again after
  // the retry delay instead of its interval (docs/engine.md, "Our failures are not the target's").
  const unanswered = outcomes.every(({ row }) => !row.ok && UNANSWERED.has(row.error ?? ''));
  const resolverDown =
    zones.length > 0 &&
    unanswered &&
    (context.health.down || outcomes.every(({ row }) => row.error === RESOLVER_UNREACHABLE));
  if (resolverDown) for (const { row } of outcomes) row.error = RESOLVER_UNAVAILABLE;

  const checkedMs = context.clock.now();
  const checkedAt = toTimestamp(checkedMs);
  const found = listingsOf(monitor, outcomes, context, checkedAt);
  const failedZones: string[] = [];
  for (const { row } of outcomes) if (!row.ok) failedZones.push(row.zone);
  failedZones.sort();
  // The zones that listed the target at this check, with a listing that counts: a zone that
  // failed lists nothing at this check, though `listings` keeps what it last said.
  const answered: string[] = [];
  for (const listing of found) {
    if (!failed(listing.zone, outcomes) && counts(listing, monitor)) answered.push(listing.zone);
  }
  // Error when no zone answered (no zone at all included: a target with nothing to ask has not
  // been checked); else listed when a zone listed the target with a listing that counts, clean
  // when none did. An error check keeps the `listed_on` and `listings` of the last check that had
  // an answer (a monitor left with no zone to ask among them).
  const status: BlacklistStatus =
    failedZones.length === zones.length ? 'error' : answered.length > 0 ? 'listed' : 'clean';
  const listedOn = status === 'error' ? monitor.listed_on : answered;
  const listings = status === 'error' ? monitor.listings : found;

  const change: BlacklistCheckChange = {
    last_status: status,
    last_checked_at: checkedAt,
    listed_on: listedOn,
    failed_zones: failedZones,
    listings,
    rdns,
  };
  // In a maintenance window nothing is announced and the results are marked; the first check after
  // one announces what changed since the listings announced before it (docs/engine.md,
  // "Maintenance windows").
  const maintenanceSince = claimed.maintenance_since ?? null;
  const announced = claimed.announced_listed_on ?? null;
  // What was announced is what the events compare with: the listings a window kept quiet are not.
  const before =
    announced === null
      ? monitor
      : {
          ...monitor,
          listed_on: announced,
          listings: monitor.listings.filter((listing) => announced.includes(listing.zone)),
        };
  return {
    checked_at: checkedAt,
    last_status: status,
    listed_on: listedOn,
    failed_zones: failedZones,
    listings,
    rdns,
    results:
      maintenanceSince === null
        ? outcomes.map(({ row }) => row)
        : outcomes.map(({ row }) => ({ ...row, maintenance: true as const })),
    next_check_at: new Date(
      resolverDown
        ? checkedMs + Math.min(context.retryDelayS, monitor.check_interval_s) * 1000
        : nextCheckAt(checkedMs, monitor.check_interval_s, context.random),
    ).toISOString(),
    events: maintenanceSince === null ? blacklistEvents(before, change, checkedAt) : [],
    ...(maintenanceSince === null ? {} : { maintenance_since: maintenanceSince }),
  };
}

/** Whether a zone's lookup failed at this check. */
function failed(zone: string, outcomes: readonly ZoneOutcome[]): boolean {
  return outcomes.some(({ row }) => row.zone === zone && !row.ok);
}

/**
 * The monitor's listings after this check, sorted by zone, and each listed row filled in with
 * what its answer means. A zone that lists the target keeps the `since` of the listing it had; a
 * zone that failed keeps its listing as it was; a zone that answered without listing has none.
 */
function listingsOf(
  monitor: BlacklistMonitor,
  outcomes: readonly ZoneOutcome[],
  context: DnsblCheckContext,
  checkedAt: Timestamp,
): DnsblListing[] {
  // Most monitors were listed nowhere before: no map to build for them.
  const before =
    monitor.listings.length === 0 ? null : new Map(monitor.listings.map((listing) => [listing.zone, listing]));
  const listings: DnsblListing[] = [];
  for (const { row, addresses } of outcomes) {
    if (row.listed) {
      const reading = readListing(addresses, zoneInfo(row.zone, context.zoneInfo));
      const since = before?.get(row.zone)?.since ?? checkedAt;
      row.meaning = reading.meaning;
      row.policy = reading.policy;
      row.delist_url = reading.delist_url;
      row.since = since;
      listings.push({ zone: row.zone, answer: row.answer!, ...reading, since });
    } else if (!row.ok) {
      const kept = before?.get(row.zone);
      if (kept !== undefined) listings.push(kept);
    }
  }
  return listings.sort((a, b) => (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : 0));
}

/**
 * An IP target's PTR name, lower-cased without its trailing dot: the first the server gave (mail
 * receivers check that one), or null when there is none. A lookup that failed says nothing, so
 * the name last known is kept.
 */
async function reverseName(
  monitor: BlacklistMonitor,
  prefix: string,
  context: DnsblCheckContext,
): Promise<string | null> {
  const resolvePtr = context.resolver.resolvePtr?.bind(context.resolver);
  if (resolvePtr === undefined) return null;
  // The reversed address a DNSBL is asked with is the reverse zone's name too.
  const name = `${prefix}.${prefix.split('.').length === 4 ? 'in-addr' : 'ip6'}.arpa`;
  const reply: ZoneReply = await askPtrWithDeadline(resolvePtr, name, context.dnsTimeoutMs, context.health);
  if ('addresses' in reply) {
    const first = reply.addresses[0];
    return first === undefined ? null : first.toLowerCase().replace(/\.$/, '');
  }
  if (reply.code === 'ENOTFOUND' || reply.code === 'ENODATA') return null;
  return monitor.rdns;
}
