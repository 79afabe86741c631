import type { BlacklistMonitor, EventType, NewMonitoringEvent, Timestamp } from '../../core/index.ts';

/**
 * The event a blacklist check announces, if any (docs/engine.md, "Statuses and transitions"):
 * `blacklist.listed` when a zone lists the target that did not before, `blacklist.delisted` when
 * no zone lists it any more. An `error` check is shown, never announced.
 *
 * The comparison is of zones, not of statuses: an `error` check keeps the last known `listed_on`
 * (see check-blacklist.ts), so across it the listing is still there. Listed, error, clean is then
 * announced as a delisting, and clean, error, clean as nothing.
 */
export function blacklistEventType(
  before: BlacklistMonitor,
  after: Pick<BlacklistMonitor, 'last_status' | 'listed_on'>,
): EventType | null {
  if (after.last_status === 'error') return null;
  // Most targets were listed nowhere before: no set to build for them.
  if (before.listed_on.length === 0) return after.listed_on.length > 0 ? 'blacklist.listed' : null;
  const known = new Set(before.listed_on);
  if (after.listed_on.some((zone) => !known.has(zone))) return 'blacklist.listed';
  if (after.listed_on.length === 0 && known.size > 0) return 'blacklist.delisted';
  return null;
}

/** What a check changes of a monitor. */
export type BlacklistCheckChange = Pick<
  BlacklistMonitor,
  'last_status' | 'last_checked_at' | 'listed_on' | 'failed_zones'
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
