import type { BlacklistMonitor, DnsblListing, EventType, NewMonitoringEvent, Timestamp } from '../../core/index.ts';

/**
 * Whether a listing makes the monitor `listed`: every one does but a policy listing, unless the
 * monitor counts those.
 */
export function counts(listing: DnsblListing, monitor: Pick<BlacklistMonitor, 'count_policy_listings'>): boolean {
  return !listing.policy || monitor.count_policy_listings;
}

/**
 * The event a blacklist check announces, if any (docs/engine.md, "Statuses and transitions"):
 * `blacklist.listed` when a zone lists the target that was not known to, `blacklist.delisted`
 * when no listing that counts is known any more. An `error` check is shown, never announced.
 *
 * The comparison is of listings, not of statuses. What was known before is the last check's
 * `listed_on` and its listings that count; what is known after is the listings that count, where
 * a zone that failed keeps the listing it had (see check-blacklist.ts). So a zone's transient
 * error announces nothing, neither as it starts nor as it ends; listed, error, clean is announced
 * as a delisting, clean, error, clean as nothing. `listed_on` is in the first set so that a record
 * listed before it had `listings` (written by an older version) is not announced again.
 */
export function blacklistEventType(
  before: BlacklistMonitor,
  after: Pick<BlacklistMonitor, 'last_status' | 'listings'>,
): EventType | null {
  if (after.last_status === 'error') return null;
  const now: string[] = [];
  for (const listing of after.listings) if (counts(listing, before)) now.push(listing.zone);
  // Most targets were listed nowhere before: no set to build for them.
  if (before.listed_on.length === 0 && before.listings.length === 0) return now.length > 0 ? 'blacklist.listed' : null;
  const known = new Set(before.listed_on);
  for (const listing of before.listings) if (counts(listing, before)) known.add(listing.zone);
  if (now.some((zone) => !known.has(zone))) return 'blacklist.listed';
  if (now.length === 0 && known.size > 0) return 'blacklist.delisted';
  return null;
}

/** What a check changes of a monitor. */
export type BlacklistCheckChange = Pick<
  BlacklistMonitor,
  'last_status' | 'last_checked_at' | 'listed_on' | 'failed_zones' | 'listings' | 'rdns'
>;

/**
 * The events of one check: none or one, carrying the record as the check left it. The record is
 * copied only when there is an event: nearly every check announces nothing, and a copy of every
 * record at every check is work on the engine's hottest path (docs/performance.md, "The engine").
 */
export function blacklistEvents(
  before: BlacklistMonitor,
  change: BlacklistCheckChange,
  at: Timestamp,
): NewMonitoringEvent[] {
  const type = blacklistEventType(before, change);
  if (type === null) return [];
  return [
    {
      type,
      created_at: at,
      data: { ...before, ...change, previous_status: before.last_status, status: change.last_status },
    },
  ];
}
