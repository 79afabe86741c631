import {
  toTimestamp,
  type BlacklistCheckOutcome,
  type BlacklistStatus,
  type ClaimedBlacklistMonitor,
  type Clock,
  type NewDnsblResult,
} from '../../core/internal.ts';
import { nextCheckAt } from '../scheduler/next-check.ts';
import { blacklistEvents, type BlacklistCheckChange } from './blacklist-events.ts';
import { classifyReply } from './classify.ts';
import type { DnsHealth } from './dns-health.ts';
import { queryPrefix, zonesFor } from './query-name.ts';
import { askWithDeadline, type DnsblResolver } from './resolver.ts';

/** What a blacklist check needs besides the record: the engine builds one for all checks. */
export interface DnsblCheckContext {
  resolver: DnsblResolver;
  health: DnsHealth;
  clock: Clock;
  zones: { ip: readonly string[]; domain: readonly string[] };
  /** Each lookup's deadline. */
  dnsTimeoutMs: number;
  /** Lookups of one check in flight at once. */
  queriesPerCheck: number;
  random: () => number;
}

/**
 * One blacklist check (docs/engine.md, "Blacklist monitors (DNSBL)"): the target asked in each of
 * its zones, a result row per zone, and the record's next state. Never rejects on DNS trouble:
 * a zone that fails is an `error` row and a name in `failed_zones`.
 */
export async function checkBlacklistMonitor(
  claimed: ClaimedBlacklistMonitor,
  context: DnsblCheckContext,
): Promise<BlacklistCheckOutcome> {
  const monitor = claimed.record;
  const zones = zonesFor(monitor, context.zones);
  const prefix = queryPrefix(monitor);
  const results: NewDnsblResult[] = new Array<NewDnsblResult>(zones.length);

  let next = 0;
  const askNext = async (): Promise<void> => {
    while (next < zones.length) {
      const index = next++;
      const zone = zones[index]!;
      const started = performance.now();
      const reply = await askWithDeadline(context.resolver, `${prefix}.${zone}`, context.dnsTimeoutMs, context.health);
      const verdict = classifyReply(zone, reply);
      results[index] = {
        // toTimestamp caches the text per millisecond: lookups ending together share it.
        checked_at: toTimestamp(context.clock.now()),
        probe: 'dnsbl',
        ok: verdict.ok,
        response_ms: Math.round(performance.now() - started),
        error: verdict.error,
        zone,
        listed: verdict.listed,
        answer: verdict.answer,
      };
    }
  };
  const askers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(context.queriesPerCheck, zones.length); i++) askers.push(askNext());
  await Promise.all(askers);

  const listedOn: string[] = [];
  const failedZones: string[] = [];
  for (const result of results) {
    if (result.listed) listedOn.push(result.zone);
    if (!result.ok) failedZones.push(result.zone);
  }
  listedOn.sort();
  failedZones.sort();
  // Error when no zone answered (no zone at all included: a target with nothing to ask has not
  // been checked); else listed when any zone listed it, clean when none did. A zone that failed
  // lists nothing at this check. An error check keeps the listing last known, so that a delisting
  // across an outage is still announced (docs/engine.md, "Blacklist monitors (DNSBL)").
  const status: BlacklistStatus =
    failedZones.length === zones.length ? 'error' : listedOn.length > 0 ? 'listed' : 'clean';

  const checkedMs = context.clock.now();
  const checkedAt = toTimestamp(checkedMs);
  const listed = status === 'error' ? monitor.listed_on : listedOn;
  const change: BlacklistCheckChange = {
    last_status: status,
    last_checked_at: checkedAt,
    listed_on: listed,
    failed_zones: failedZones,
  };
  // In a maintenance window nothing is announced and the results are marked; the first check after
  // one announces what changed since the listings announced before it (docs/engine.md,
  // "Maintenance windows").
  const maintenanceSince = claimed.maintenance_since ?? null;
  const announced = claimed.announced_listed_on ?? null;
  const before = announced === null ? monitor : { ...monitor, listed_on: announced };
  return {
    checked_at: checkedAt,
    last_status: status,
    listed_on: listed,
    failed_zones: failedZones,
    results: maintenanceSince === null ? results : results.map((result) => ({ ...result, maintenance: true as const })),
    next_check_at: new Date(nextCheckAt(checkedMs, monitor.check_interval_s, context.random)).toISOString(),
    events: maintenanceSince === null ? blacklistEvents(before, change, checkedAt) : [],
    ...(maintenanceSince === null ? {} : { maintenance_since: maintenanceSince }),
  };
}
