import type { BlacklistMonitor, EventType, NewMonitoringEvent, Timestamp } from '../../core/index.ts';

/**
 * The event a blacklist check announces, if any (docs/engine.md, "Statuses and transitions"):
 * `blacklist.listed` when a zone lists the target that did not before, `blacklist.delisted` when
 * no zone lists it any more. An `error` check is shown, never announced.
 *
 * The comparison is of zones, not of statuses: a zone that failed keeps its last verdict in
 * `listed_on` (see check-blacklist.ts), so across an `error` check the last known listing is still
 * there. Listed, error, clean is then announced as a delisting, and clean, error, clean as nothing.
 */
export function blacklistEventType(before: BlacklistMonitor, after: BlacklistMonitor): EventType | null {
  if (after.last_status === 'error') return null;
  const known = new Set(before.listed_on);
  if (after.listed_on.some((zone) => !known.has(zone))) return 'blacklist.listed';
  if (after.listed_on.length === 0 && known.size > 0) return 'blacklist.delisted';
  return null;
}

/** The events of one check: none or one, carrying the record as the check left it. */
export function blacklistEvents(before: BlacklistMonitor, after: BlacklistMonitor, at: Timestamp): NewMonitoringEvent[] {
  const type = blacklistEventType(before, after);
  if (type === null) return [];
  return [{ type, created_at: at, data: { ...after, previous_status: before.last_status, status: after.last_status } }];
}
