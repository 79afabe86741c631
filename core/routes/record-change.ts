import { sameValue, type ChangeEffect } from '../store/store-calls.ts';
import type { EventType, NewMonitoringEvent, Timestamp } from '../records/index.ts';

/** What the engine's part of a change depends on, for one kind of record. */
export interface ChangeRules {
  /**
   * The create fields whose change leaves what is checked as it was (the free-text location, the
   * interval, `is_enabled` itself). Every other create field, those added later included, is part
   * of what is checked: changing it restarts the record's checks.
   */
  unchecked: ReadonlySet<string>;
  /** The events of a pause and of a resume; none for a kind the engine does not check. */
  events?: { paused: EventType; resumed: EventType };
}

interface Switchable {
  is_enabled: boolean;
}

/** The fields whose value a change alters. */
export function changedFields(from: object, to: object, fields: readonly string[]): string[] {
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  return fields.filter((name) => !sameValue(a[name], b[name]));
}

/** What a change means for the engine (docs/engine.md, "Changing a record"). */
export function effectOf(
  rules: ChangeRules,
  from: Switchable,
  to: Switchable,
  changed: readonly string[],
): ChangeEffect {
  if (from.is_enabled && !to.is_enabled) return 'pause';
  if (!from.is_enabled && to.is_enabled) return 'resume';
  if (!to.is_enabled) return 'none';
  if (changed.some((name) => !rules.unchecked.has(name))) return 'restart';
  if (changed.includes('check_interval_s')) return 'reschedule';
  return 'none';
}

/** The status a device has after a change, or undefined when the change leaves it. */
export function deviceStatusAfter(effect: ChangeEffect): 'paused' | 'pending' | undefined {
  if (effect === 'pause') return 'paused';
  if (effect === 'resume' || effect === 'restart') return 'pending';
  return undefined;
}

/**
 * The record as a change leaves it, as far as the API shows it: its fields from `to`, and for a
 * device the status the effect gives it (`status_since` moving only when the status does).
 */
function recordAfter<T extends object>(
  from: T,
  to: object,
  fields: readonly string[],
  effect: ChangeEffect,
  at: Timestamp,
): T {
  const after: Record<string, unknown> = { ...(from as Record<string, unknown>) };
  const given = to as Record<string, unknown>;
  for (const name of fields) if (Object.hasOwn(after, name)) after[name] = given[name];
  const status = deviceStatusAfter(effect);
  if ('status' in after && status !== undefined && after.status !== status) {
    after.status = status;
    after.status_since = at;
  }
  return after as T;
}

/**
 * The event a pause or resume announces (none for other changes): the record as `changed` leaves
 * it (`recordAfter`, worked out only for an event), with the status before and after. A device's
 * statuses are its own; a blacklist monitor, which has no status of its own beyond its last
 * check, is `active` or `paused`.
 */
export function changeEvents<T extends Switchable>(
  rules: ChangeRules,
  from: T,
  changed: { to: object; fields: readonly string[] },
  effect: ChangeEffect,
  at: Timestamp,
): NewMonitoringEvent[] {
  if (rules.events === undefined || (effect !== 'pause' && effect !== 'resume')) return [];
  const type = effect === 'pause' ? rules.events.paused : rules.events.resumed;
  const after = recordAfter(from, changed.to, changed.fields, effect, at);
  const statusOf = (record: T): string =>
    'status' in record && typeof record.status === 'string' ? record.status : record.is_enabled ? 'active' : 'paused';
  const data = {
    ...after,
    previous_status: statusOf(from),
    status: statusOf(after),
  } as unknown as NewMonitoringEvent['data'];
  return [{ type, created_at: at, data }];
}
