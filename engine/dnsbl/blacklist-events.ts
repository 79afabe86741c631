import type { BlacklistMonitor, EventType, NewMonitoringEvent, Timestamp } from '../../core/index.ts';

/**
 * The event a blacklist check announces, if any (docs/engine.md, "Statuses and transitions"):
 * `blacklist.listed` when the target becomes listed or is listed on a zone more, and
 * `blacklist.delisted` when a listed target is clean again. `error` is shown, never announced.
 *
 * A check before which the status was `error` (or never set) has nothing to compare with: a
 * listing after it is announced, since a missed listing costs the owner more than a repeated one,
 * and the event's `previous_status: "error"` tells the two apart. A clean check after `error`
 * announces nothing, or every clean monitor would be "delisted" after each DNS outage.
 */
export function blacklistEventType(before: BlacklistMonitor, after: BlacklistMonitor): EventType | null {
  if (after.last_status === 'listed') {
    if (before.last_status !== 'listed') return 'blacklist.listed';
    const known = new Set(before.listed_on);
    return after.listed_on.some((zone) => !known.has(zone)) ? 'blacklist.listed' : null;
  }
  if (after.last_status === 'clean' && before.last_status === 'listed') return 'blacklist.delisted';
  return null;
}

/** The events of one check: none or one, carrying the record as the check left it. */
export function blacklistEvents(before: BlacklistMonitor, after: BlacklistMonitor, at: Timestamp): NewMonitoringEvent[] {
  const type = blacklistEventType(before, after);
  if (type === null) return [];
  return [{ type, created_at: at, data: { ...after, previous_status: before.last_status, status: after.last_status } }];
}
