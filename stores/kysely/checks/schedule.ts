import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { ClaimRequest, Lease, MonitoredKind, Timestamp } from '../../../core/index.ts';
import { flagFor, stampText, toFlag, toId, toStamp } from '../rows.ts';
import type { Database, DbFlag, DbInteger, DbTimestamp, StoreDialect } from '../schema.ts';

/** The tables whose records the engine checks. */
export type CheckedTable = 'devices' | 'blacklist_monitors';

export const TABLE_OF: Record<MonitoredKind, CheckedTable> = {
  device: 'devices',
  blacklist_monitor: 'blacklist_monitors',
};

/** What every claimed row has: the time its check was due, before the claim moved it. */
interface DueRow {
  id: DbInteger;
  due_at: DbTimestamp;
}

export interface ClaimedRow<T extends CheckedTable> {
  row: Selectable<Database[T]>;
  lease: Lease;
  due_at: Timestamp;
}

/**
 * Leases up to `claim.limit` due, unleased records of a table, earliest due first
 * (docs/engine.md, "Scheduling"), and moves each one's due time to its lease's expiry: a leased
 * row is then no longer among the due ones, so the next claim reads the first due rows of the
 * `(next_check_at, id)` index straight away instead of walking past every row in flight, and a
 * claim costs the same however many leases are held. A row whose worker dies becomes due again
 * when its lease runs out. The lease condition stays beside the due one for rows leased by a
 * version that left the due time alone (migration 0010 moves those too).
 *
 * On PostgreSQL one statement: `FOR UPDATE SKIP LOCKED` makes concurrent claimers pass over each
 * other's rows, and a row another claim committed meanwhile is read again and no longer qualifies,
 * so no record is claimed twice. On SQLite a transaction, which takes the database's one write
 * lock as it begins with every runtime's driver (drivers/sqlite-transactions.ts), reads the due rows and
 * leases them.
 */
export async function claimDue<T extends CheckedTable>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  table: T,
  claim: ClaimRequest,
): Promise<ClaimedRow<T>[]> {
  if (claim.limit <= 0) return [];
  // One token for the whole claim: a lease is the pair (record, token), and every claim has its own.
  const lease = { token: randomUUID(), owner: claim.owner, expires_at: stampText(claim.leaseUntil) };
  const now = stampText(claim.now);
  const due = sql`next_check_at <= ${now} and (lease_expires_at is null or lease_expires_at <= ${now})`;
  const set = sql`lease_owner = ${lease.owner}, lease_token = ${lease.token}, lease_expires_at = ${lease.expires_at},
    next_check_at = ${lease.expires_at}`;
  let rows: (Selectable<Database[T]> & DueRow)[];
  if (dialect === 'postgres') {
    ({ rows } = await sql<Selectable<Database[T]> & DueRow>`
      with picked as (
        select id, next_check_at as due_at from ${sql.table(table)}
        where ${due}
        order by next_check_at, id
        limit ${claim.limit}
        for update skip locked
      )
      update ${sql.table(table)} t set ${set}
      from picked
      where t.id = picked.id
      returning t.*, picked.due_at`.execute(db));
  } else {
    rows = await db.transaction().execute(async (trx) => {
      const picked = await sql<DueRow>`
        select id, next_check_at as due_at from ${sql.table(table)}
        where ${due}
        order by next_check_at, id
        limit ${claim.limit}`.execute(trx);
      if (picked.rows.length === 0) return [];
      const dueAt = new Map(picked.rows.map((row) => [toId(row.id), row.due_at]));
      const updated = await sql<Selectable<Database[T]> & { id: DbInteger }>`
        update ${sql.table(table)} set ${set}
        where id in (${sql.join([...dueAt.keys()])})
        returning *`.execute(trx);
      return updated.rows.map((row) => ({ ...row, due_at: dueAt.get(toId(row.id))! }));
    });
  }
  const claimed = rows.map((row) => {
    return { row, lease: { id: toId(row.id), ...lease }, due_at: toStamp(row.due_at) };
  });
  // RETURNING follows no order; the contract's is earliest due first, ties by id.
  return claimed.sort((a, b) => a.due_at.localeCompare(b.due_at) || a.lease.id - b.lease.id);
}

/**
 * Enables or disables a record as the memory store does: a change of state resets the schedule
 * (due at `at` when enabled, none when disabled), drops any lease so a check in flight is not
 * recorded, and for a device sets `pending` or `paused` from `at`. Asking for the state the record
 * already has changes nothing. False when no such record exists.
 */
export async function setEnabled(
  db: Kysely<Database>,
  dialect: StoreDialect,
  kind: MonitoredKind,
  id: number,
  enabled: boolean,
  at: Timestamp,
): Promise<boolean> {
  const table = TABLE_OF[kind];
  const stamp = stampText(at);
  const schedule = {
    is_enabled: flagFor(dialect, enabled),
    next_check_at: enabled ? stamp : null,
    lease_owner: null,
    lease_token: null,
    lease_expires_at: null,
  };
  const changed =
    kind === 'device'
      ? await db
          .updateTable('devices')
          .set({ ...schedule, status: enabled ? 'pending' : 'paused', status_since: stamp, consecutive_failures: 0 })
          .where('id', '=', id)
          .where('is_enabled', '=', flagFor(dialect, !enabled))
          .executeTakeFirst()
      : await db
          .updateTable('blacklist_monitors')
          .set(schedule)
          .where('id', '=', id)
          .where('is_enabled', '=', flagFor(dialect, !enabled))
          .executeTakeFirst();
  if (changed.numUpdatedRows > 0n) return true;
  const exists = await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst();
  return exists !== undefined;
}

/** What `requestCheck` found: the row it made due, or why it did not. */
export type CheckRequestRow<T extends CheckedTable> =
  | { outcome: 'due'; row: Selectable<Database[T]> }
  | { outcome: 'not_found' }
  | { outcome: 'paused' }
  | { outcome: 'too_soon'; retry_at: Timestamp };

/**
 * Makes an enabled record of the user due at `at`, unless its last request that took effect was
 * less than `minGapMs` before (docs/engine.md, "Checks on demand"). The test and the change are
 * one UPDATE, so two instances asked at once make the record due once and the other is told to
 * wait. A lease in flight is left alone: its check started before the request and is recorded.
 */
export async function requestCheck<T extends CheckedTable>(
  db: Kysely<Database>,
  dialect: StoreDialect,
  table: T,
  userId: number,
  id: number,
  at: Timestamp,
  minGapMs: number,
): Promise<CheckRequestRow<T>> {
  const now = stampText(at);
  const earliest = stampText(new Date(new Date(at).getTime() - minGapMs).toISOString());
  const enabled = flagFor(dialect, true);
  const { rows } = await sql<Selectable<Database[T]>>`
    update ${sql.table(table)} set next_check_at = ${now}, check_requested_at = ${now}
    where id = ${id} and user_id = ${userId} and is_enabled = ${enabled}
      and (check_requested_at is null or check_requested_at <= ${earliest})
    returning *`.execute(db);
  if (rows[0] !== undefined) return { outcome: 'due', row: rows[0] };
  const { rows: found } = await sql<{ is_enabled: DbFlag; check_requested_at: DbTimestamp | null }>`
    select is_enabled, check_requested_at from ${sql.table(table)}
    where id = ${id} and user_id = ${userId}`.execute(db);
  const current = found[0];
  if (current === undefined) return { outcome: 'not_found' };
  if (!toFlag(current.is_enabled)) return { outcome: 'paused' };
  // Refused for the gap: the request that took effect is there (a concurrent one, at the latest).
  const last = current.check_requested_at === null ? at : toStamp(current.check_requested_at);
  return { outcome: 'too_soon', retry_at: new Date(new Date(last).getTime() + minGapMs).toISOString() };
}
