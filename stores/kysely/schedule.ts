import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type { ClaimRequest, Lease, MonitoredKind, Timestamp } from '../../core/index.ts';
import { flagFor, stampText, toId, toStamp } from './rows.ts';
import type { Database, DbInteger, DbTimestamp, StoreDialect } from './schema.ts';

/** The tables whose records the engine checks. */
export type CheckedTable = 'devices' | 'blacklist_monitors';

export const TABLE_OF: Record<MonitoredKind, CheckedTable> = {
  device: 'devices',
  blacklist_monitor: 'blacklist_monitors',
};

/** What every claimed row has: only due rows are claimed, so next_check_at is never null. */
interface DueRow {
  id: DbInteger;
  next_check_at: DbTimestamp;
}

export interface ClaimedRow<T extends CheckedTable> {
  row: Selectable<Database[T]>;
  lease: Lease;
  due_at: Timestamp;
}

/**
 * Leases up to `claim.limit` due, unleased records of a table, earliest due first
 * (docs/engine.md, "Scheduling"). One statement: on PostgreSQL `FOR UPDATE SKIP LOCKED` makes
 * concurrent claimers pass over each other's rows, and a row whose lease another claim committed
 * meanwhile is read again and no longer qualifies, so no record is claimed twice. On SQLite the
 * statement runs under the database's one write lock. The claim leaves `next_check_at` alone, so
 * the row it returns still says when the check was due.
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
  const skipLocked = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const { rows } = await sql<Selectable<Database[T]> & DueRow>`
    update ${sql.table(table)}
    set lease_owner = ${lease.owner}, lease_token = ${lease.token}, lease_expires_at = ${lease.expires_at}
    where id in (
      select id from ${sql.table(table)}
      where next_check_at <= ${now} and (lease_expires_at is null or lease_expires_at <= ${now})
      order by next_check_at, id
      limit ${claim.limit}
      ${skipLocked}
    )
    returning *`.execute(db);
  const claimed = rows.map((row) => {
    return { row, lease: { id: toId(row.id), ...lease }, due_at: toStamp(row.next_check_at) };
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
