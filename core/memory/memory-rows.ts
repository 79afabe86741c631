import type { Claimed, ClaimRequest, Lease } from '../store/monitoring-store.ts';
import type { BlacklistMonitor, Device, NewBlacklistMonitor, NewDevice, Timestamp } from '../records/index.ts';
import { sameValue, type PageRequest, type RecordChange, type UpdateResult } from '../store/store-calls.ts';

// How the memory store keeps a record (memory-store.ts): its owner, the engine's schedule
// beside it, claims and leases, and the rules a change is written by, as the SQL stores apply them.

/** The engine's bookkeeping for one record, which the API never shows. */
export interface Schedule {
  /** Epoch ms of the next check; null while disabled. */
  nextCheckAt: number | null;
  lease: Lease | null;
  failures: number;
  /** Epoch ms of the last on-demand check request that took effect; null before any. */
  checkRequestedAt: number | null;
}

export interface Owned<T> {
  userId: number;
  record: T;
  schedule: Schedule;
  /** A blacklist monitor's part in maintenance (docs/engine.md, "Maintenance windows"). */
  maintenanceSince?: Timestamp | null;
  announced?: string[] | null;
  /** A device's: the start of the occurrence its entering maintenance was announced for. */
  maintenanceAnnounced?: Timestamp | null;
  /** A device's, while `validating` after `up`: when that `up` began (as the SQL stores' `up_since`). */
  upSince?: Timestamp | null;
}

export const ms = (at: Timestamp) => new Date(at).getTime();
export const iso = (at: Timestamp) => new Date(at).toISOString();

export function newSchedule(enabled: boolean, createdAt: Timestamp): Schedule {
  // A new enabled record is due at once (docs/engine.md, "Scheduling").
  return { nextCheckAt: enabled ? ms(createdAt) : null, lease: null, failures: 0, checkRequestedAt: null };
}

/** Records due at `claim.now` and not leased, earliest due first (ties by id), leased to the caller. */
export function claimDue<T extends { id: number }>(
  rows: Map<number, Owned<T>>,
  claim: ClaimRequest,
  token: string,
): Claimed<T>[] {
  const now = ms(claim.now);
  const due = [...rows.values()].filter(
    ({ schedule: s }) =>
      s.nextCheckAt !== null && s.nextCheckAt <= now && (s.lease === null || ms(s.lease.expires_at) <= now),
  );
  due.sort((a, b) => a.schedule.nextCheckAt! - b.schedule.nextCheckAt! || a.record.id - b.record.id);
  return due.slice(0, claim.limit).map((row) => {
    const lease: Lease = { id: row.record.id, token, owner: claim.owner, expires_at: iso(claim.leaseUntil) };
    const dueAt = new Date(row.schedule.nextCheckAt!).toISOString();
    row.schedule.lease = lease;
    // Due again when the lease runs out, as the SQL stores schedule it (docs/engine.md, "Scheduling").
    row.schedule.nextCheckAt = ms(claim.leaseUntil);
    return { record: structuredClone(row.record), lease: { ...lease }, due_at: dueAt };
  });
}

export function holds(row: Owned<unknown> | undefined, lease: Lease): row is Owned<unknown> {
  return row !== undefined && row.schedule.lease !== null && row.schedule.lease.token === lease.token;
}

/** A new record with `name` and `channel_ids`, null when it leaves them out (NewDevice, NewBlacklistMonitor). */
export function withNotify<T extends { name?: string | null; channel_ids?: number[] | null }>(
  record: T,
): T & { name: string | null; channel_ids: number[] | null } {
  return { ...record, name: record.name ?? null, channel_ids: record.channel_ids ?? null };
}

export function deviceIdentity(userId: number, d: NewDevice): string {
  return JSON.stringify([userId, d.target_type, d.target_value, d.service_type, d.port, d.scheme]);
}

export function monitorIdentity(userId: number, m: NewBlacklistMonitor): string {
  return JSON.stringify([userId, m.target_type, m.target_value]);
}

/** Whether the record still holds what the change was read from (docs/contract.md §6.9). */
function unchangedSince(
  record: object,
  change: Pick<RecordChange<object, object>, 'from' | 'fields' | 'effect'>,
): boolean {
  const now = record as Record<string, unknown>;
  const from = change.from as Record<string, unknown>;
  if (!change.fields.every((name) => !Object.hasOwn(from, name) || sameValue(now[name], from[name]))) return false;
  // A change that moves a device's status is written only from the status it was read with.
  const movesStatus = change.effect === 'pause' || change.effect === 'resume' || change.effect === 'restart';
  return !movesStatus || !('status' in from) || now.status === from.status;
}

/**
 * The change to write to a record as it is now (`current`, the record as the API sees it): the
 * change itself while the record holds what it was judged against, or else the request judged
 * again against `current` (`RecordChange.reapply`), `unchanged` when that changes nothing, and
 * `stale` for a change that cannot be judged again. Nothing waits between the look and the write
 * that follows it, so no other change comes between.
 */
export function changeNow<T extends object, New>(
  current: T,
  change: RecordChange<T, New>,
): RecordChange<T, New> | 'unchanged' | 'stale' {
  if (unchangedSince(current, change)) return change;
  if (change.reapply === undefined) return 'stale';
  const again = change.reapply(structuredClone(current));
  return again === null ? 'unchanged' : { ...again, from: current };
}

/** A copy of `record` with the fields a change writes (`fields`) taken from its `to`, as a store's UPDATE sets them. */
export function withChangedFields<T extends object>(record: T, change: { to: unknown; fields: readonly string[] }): T {
  const next = { ...record } as Record<string, unknown>;
  const to = change.to as Record<string, unknown>;
  for (const name of change.fields) if (Object.hasOwn(next, name)) next[name] = structuredClone(to[name]);
  return next as T;
}

/**
 * Writes a change to a user's record kept as `{ userId, record }` (maintenance windows, status
 * page notices), as the SQL stores' compare-and-set does: undefined when the record is not the
 * user's, `stale` or the record as it is after the change.
 */
export function updateOwned<T extends object, New>(
  rows: Map<number, { userId: number; record: T }>,
  userId: number,
  id: number,
  change: RecordChange<T, New>,
): UpdateResult<T> {
  const row = rows.get(id);
  if (!row || row.userId !== userId) return undefined;
  const now = changeNow(row.record, change);
  if (now === 'stale') return { stale: true };
  if (now !== 'unchanged') row.record = withChangedFields(row.record, now);
  return { updated: structuredClone(row.record) };
}

/** Deletes a user's record kept as `{ userId, record }`; false when it is not the user's. */
export function deleteOwned(rows: Map<number, { userId: number }>, userId: number, id: number): boolean {
  const row = rows.get(id);
  return row !== undefined && row.userId === userId && rows.delete(id);
}

/** Applies a change's engine effect to a record's schedule (and a device's status), as the SQL stores do. */
export function applyEffect(
  row: Owned<Device> | Owned<BlacklistMonitor>,
  change: Pick<RecordChange<object, object>, 'effect' | 'at'>,
): void {
  const at = ms(change.at);
  const { effect } = change;
  if (effect === 'pause') row.schedule = { ...row.schedule, nextCheckAt: null, lease: null, failures: 0 };
  if (effect === 'resume' || effect === 'restart')
    row.schedule = { ...row.schedule, nextCheckAt: at, lease: null, failures: 0 };
  if (effect === 'reschedule' && row.record.last_checked_at !== null && row.schedule.nextCheckAt !== null) {
    const latest = ms(row.record.last_checked_at) + row.record.check_interval_s * 1000;
    row.schedule.nextCheckAt = Math.min(row.schedule.nextCheckAt, latest);
  }
  if ('status' in row.record) {
    const status = effect === 'pause' ? 'paused' : effect === 'resume' || effect === 'restart' ? 'pending' : null;
    if (status !== null && row.record.status !== status) {
      Object.assign(row.record, { status, status_since: iso(change.at) });
    }
  } else if (effect === 'restart') {
    // Another target's listings say nothing of this one's.
    Object.assign(row.record, { last_status: null, listed_on: [], failed_zones: [] });
  }
}

export function page<T extends { id: number }>(rows: Map<number, Owned<T>>, userId: number, req: PageRequest): T[] {
  const out: T[] = [];
  // Map iteration follows insertion order, which is ascending id order here.
  for (const [id, row] of rows) {
    if (id <= req.afterId || row.userId !== userId) continue;
    out.push(structuredClone(row.record));
    if (out.length >= req.limit) break;
  }
  return out;
}
