/** The request and answer shapes that the `Store` interfaces (store.ts, webhook-store.ts) share. */
import type { NewMonitoringEvent, Timestamp } from '../records/index.ts';

/** One page of a list, in ascending id order: records with `id > afterId`, at most `limit` of them. */
export interface PageRequest {
  afterId: number;
  /**
   * A positive integer: the core asks for at most 1001 (a page of up to 1000 and one more, or a stream batch of up to
   * 1000).
   */
  limit: number;
}

/**
 * The answer to a create: the new record, or the id of the record it duplicates. Duplicates are
 * decided by the store itself (a unique index), so concurrent identical creates yield one record.
 */
export type CreateResult<T> = { created: T } | { duplicateOf: number };

/**
 * What a change (PATCH) means for the engine (docs/engine.md, "Changing a record"): `restart`
 * when what is checked changed (due at once, a device back to `pending`, the lease dropped so a
 * check in flight is not written), `reschedule` when only the interval changed (the next check at
 * most one new interval after the last), `pause` and `resume` when `is_enabled` flips, `none`
 * otherwise.
 */
export type ChangeEffect = 'none' | 'reschedule' | 'restart' | 'pause' | 'resume';

/**
 * A change to one record of a user, as the API hands it to the store. The store writes `to`'s
 * `fields` if the record still holds `from`'s values in those fields (and, when the effect
 * changes a device's status, still has `from`'s status). Otherwise someone else changed it since
 * it was read: the store reads it again, holding off every other change of it until this one is
 * written (a row lock), and writes what `reapply` makes of the request against the record as it is
 * now. Without `reapply`, the answer is then `stale`. The events are written with the change, in
 * one transaction, or not at all.
 */
export interface RecordChange<T, New> {
  /** The record as read. */
  from: T;
  /** The record as it is to be: `from` with the request applied, validated as a create is. */
  to: New;
  /** The names of the fields a request may change (the create's fields); the store writes these. */
  fields: readonly string[];
  effect: ChangeEffect;
  /** When the change happens: the new status's `status_since`, the due time after a restart. */
  at: Timestamp;
  events: readonly NewMonitoringEvent[];
  /**
   * The request judged again against the record as it is now (the store's copy, which it may
   * not keep): what to write instead, or null when the request changes nothing in it (the store
   * then answers the record as it is). An error it throws is the request's own (a field the
   * record as it is now refuses): the store writes nothing and throws it on. Called while the
   * store holds the record, so it must not wait for anything: the API's judgement only.
   */
  reapply?: (current: T) => Omit<RecordChange<T, New>, 'from' | 'reapply'> | null;
}

/**
 * The answer to a change: the record as changed, the id of the record it would duplicate (nothing
 * changed), `stale` (nothing changed; read again: only for a change without `reapply`), or
 * undefined when no such record is the user's.
 */
export type UpdateResult<T> = { updated: T } | { duplicateOf: number } | { stale: true } | undefined;

/**
 * Whether a field holds the same value in two versions of a record, as a change compares them
 * (docs/contract.md §6.9). Lists (a webhook's events) are compared by value: they are short, and
 * stored in one order.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return (
    typeof a === 'object' &&
    a !== null &&
    typeof b === 'object' &&
    b !== null &&
    JSON.stringify(a) === JSON.stringify(b)
  );
}
