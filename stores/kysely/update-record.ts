import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { ChangeEffect, MonitoredKind, NewMonitoringEvent, Timestamp } from '../../core/index.ts';
import { eventValues } from './result-rows.ts';
import { stampText } from './rows.ts';
import type { Database, StoreDialect } from './schema.ts';

type ChangedTable = 'devices' | 'blacklist_monitors' | 'webhooks';

/** One record's change as SQL: compare-and-set on `expect`, then `set`, then the events, at once. */
export interface RowChange {
  table: ChangedTable;
  userId: number;
  id: number;
  /** Column values to write; raw SQL where a value depends on the row (the engine's columns). */
  set: Readonly<Record<string, unknown>>;
  /** Column values the row must still hold, or nothing is written. */
  expect: Readonly<Record<string, unknown>>;
  /** Written with the change, in the same transaction; never without it. */
  events: readonly NewMonitoringEvent[];
  kind?: MonitoredKind;
}

/** A unique index refused the row: PostgreSQL's unique_violation, SQLite's UNIQUE constraint. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ('code' in error && error.code === '23505') return true;
  return error.message.includes('UNIQUE constraint failed');
}

/**
 * The engine's columns after a change (docs/engine.md, "Changing a record"), as SET values: a
 * pause drops the schedule and the lease, a resume or a restart makes the record due at `at` and
 * drops the lease (so a check in flight under the old settings is never written), a device's
 * status moves to `paused` or `pending` (`status_since` only when it moves), and a new interval
 * brings the next check to at most one interval after the last.
 */
export function effectColumns(
  table: 'devices' | 'blacklist_monitors',
  effect: ChangeEffect,
  at: Timestamp,
  lastCheckedAt: Timestamp | null,
  intervalS: number,
): Record<string, unknown> {
  const stamp = stampText(at);
  const lease = { lease_owner: null, lease_token: null, lease_expires_at: null };
  if (effect === 'reschedule') {
    if (lastCheckedAt === null) return {};
    const latest = stampText(new Date(Date.parse(lastCheckedAt) + intervalS * 1000).toISOString());
    return { next_check_at: sql`case when next_check_at > ${latest} then ${latest} else next_check_at end` };
  }
  if (effect === 'none') return {};
  const columns: Record<string, unknown> = { ...lease, next_check_at: effect === 'pause' ? null : stamp };
  if (table === 'devices') {
    const status = effect === 'pause' ? 'paused' : 'pending';
    Object.assign(columns, {
      status,
      status_since: sql`case when status <> ${status} then ${stamp} else status_since end`,
      consecutive_failures: 0,
    });
  } else if (effect === 'restart') {
    // Another target's listings say nothing of this one's.
    Object.assign(columns, { last_status: null, listed_on: '[]', failed_zones: '[]' });
  }
  return columns;
}

/**
 * Writes a change if the row still holds `expect` (null-safe comparison: `IS` on SQLite, `IS NOT
 * DISTINCT FROM` on PostgreSQL) and answers the row as written; undefined when it did not (gone,
 * another user's, or changed since it was read: the caller tells which). A unique index's refusal
 * is thrown (see isUniqueViolation). With events, one transaction; without, one statement.
 */
export async function updateRow<Row>(db: Kysely<Database>, dialect: StoreDialect, change: RowChange): Promise<Row | undefined> {
  const same = sql.raw(dialect === 'postgres' ? 'is not distinct from' : 'is');
  const assignments = Object.entries(change.set).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const conditions = Object.entries(change.expect).map(([column, value]) => sql`and ${sql.ref(column)} ${same} ${value}`);
  const statement: RawBuilder<Row> = sql<Row>`
    update ${sql.table(change.table)} set ${sql.join(assignments)}
    where id = ${change.id} and user_id = ${change.userId} ${sql.join(conditions, sql` `)}
    returning *`;
  if (change.events.length === 0) return (await statement.execute(db)).rows[0];
  return db.transaction().execute(async (trx) => {
    const row = (await statement.execute(trx)).rows[0];
    if (row === undefined) return undefined;
    await trx.insertInto('events').values(change.events.map((event) => ({
      ...eventValues(event), user_id: change.userId, resource_kind: change.kind ?? 'device', resource_id: change.id,
    }))).execute();
    return row;
  });
}

/** The named columns of a row's values, in that order; names the row does not have are left out. */
export function pickColumns(values: Readonly<Record<string, unknown>>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(values, name)) out[name] = values[name];
  return out;
}
