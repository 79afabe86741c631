import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import type {
  ActiveMaintenance,
  ClaimedHeartbeat,
  ClaimRequest,
  HeartbeatLateOutcome,
  RecordedCheck,
} from '../../../core/index.ts';
import { maintenanceEnded, maintenanceStarted, type HeartbeatWrite } from '../../../core/internal.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import type { Database, DbTimestamp, StoreDialect } from '../schema.ts';
import { stateFromRow, stateToRow } from './heartbeat-rows.ts';
import type { HeartbeatsTable } from './heartbeat-schema.ts';
import { writeTimelineChange } from './heartbeat-timeline.ts';

// The writes of heartbeats' state (docs/heartbeats.md): pings, lateness, windows. Each writes the
// state core's moves answer (core/heartbeats/heartbeat-moves.ts) with its events, timeline and
// incident in the transaction that holds the heartbeat's row.

type Row = Selectable<HeartbeatsTable>;

/**
 * Writes a move of a heartbeat if its row still matches `condition` (a lease, a status): the
 * state's columns (the lease dropped), then its events, timeline and incident. Says whether it
 * wrote.
 */
export async function writeMove(
  trx: Kysely<Database>,
  dialect: StoreDialect,
  write: HeartbeatWrite,
  condition: { leaseToken?: string; status?: string; pings?: number } = {},
): Promise<boolean> {
  const id = write.state.record.id;
  const userId = write.state.user_id;
  let update = trx.updateTable('heartbeats').set(stateToRow(dialect, write.state)).where('id', '=', id);
  if (condition.pings !== undefined) update = update.set({ ping_count: sql<number>`ping_count + ${condition.pings}` });
  if (condition.leaseToken !== undefined) update = update.where('lease_token', '=', condition.leaseToken);
  if (condition.status !== undefined) update = update.where('status', '=', condition.status as never);
  const { numUpdatedRows } = await update.executeTakeFirst();
  if (numUpdatedRows === 0n) return false;
  if (write.events.length > 0) {
    await trx
      .insertInto('events')
      .values(
        write.events.map((event) => ({
          user_id: userId,
          type: event.type,
          // The outbox names the kind of record an event is about; heartbeats are a kind of their own.
          resource_kind: 'heartbeat' as never,
          resource_id: id,
          created_at: stampText(event.created_at),
          data: JSON.stringify(event.data),
        })),
      )
      .execute();
  }
  if (write.timeline !== null) await writeTimelineChange(trx, userId, id, write.timeline);
  return true;
}

/**
 * HeartbeatStore.claimLateHeartbeats, as checks are claimed (checks/schedule.ts `claimDue`): due
 * rows of the `late_check_at` index, earliest first, leased, and their due time moved to the
 * lease's expiry. PostgreSQL: one statement passing over rows other claims hold; SQLite: a
 * transaction holding the database's write lock.
 */
export async function claimLate(
  db: Kysely<Database>,
  dialect: StoreDialect,
  claim: ClaimRequest,
): Promise<ClaimedHeartbeat[]> {
  if (claim.limit <= 0) return [];
  const lease = { token: randomUUID(), owner: claim.owner, expires_at: stampText(claim.leaseUntil) };
  const now = stampText(claim.now);
  const due = sql`late_check_at <= ${now} and (lease_expires_at is null or lease_expires_at <= ${now})`;
  const set = sql`lease_owner = ${lease.owner}, lease_token = ${lease.token}, lease_expires_at = ${lease.expires_at},
    late_check_at = ${lease.expires_at}`;
  let rows: (Row & { due_at: DbTimestamp })[];
  if (dialect === 'postgres') {
    ({ rows } = await sql<Row & { due_at: DbTimestamp }>`
      with picked as (
        select id, late_check_at as due_at from heartbeats where ${due}
        order by late_check_at, id limit ${claim.limit} for update skip locked
      )
      update heartbeats h set ${set} from picked where h.id = picked.id
      returning h.*, picked.due_at`.execute(db));
  } else {
    rows = await db.transaction().execute(async (trx) => {
      const picked = await sql<{ id: number; due_at: DbTimestamp }>`select id, late_check_at as due_at from heartbeats
        where ${due} order by late_check_at, id limit ${claim.limit}`.execute(trx);
      if (picked.rows.length === 0) return [];
      const dueAt = new Map(picked.rows.map((row) => [toId(row.id), row.due_at]));
      const updated = await sql<Row>`update heartbeats set ${set}
        where id in (${sql.join([...dueAt.keys()])}) returning *`.execute(trx);
      return updated.rows.map((row) => ({ ...row, due_at: dueAt.get(toId(row.id))! }));
    });
  }
  return rows
    .map((row) => {
      const state = stateFromRow(row);
      return { record: state.record, state, lease: { id: state.record.id, ...lease }, due_at: toStamp(row.due_at) };
    })
    .sort((a, b) => a.due_at.localeCompare(b.due_at) || a.lease.id - b.lease.id);
}

/** HeartbeatStore.recordLateHeartbeats: each written while its lease holds and its status is the one claimed. */
export async function recordLate(
  db: Kysely<Database>,
  dialect: StoreDialect,
  checks: readonly RecordedCheck<HeartbeatLateOutcome>[],
): Promise<boolean[]> {
  if (checks.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    const written: boolean[] = [];
    for (const { lease, outcome } of checks) {
      const condition = { leaseToken: lease.token, status: outcome.previous_status };
      written.push(
        outcome.write.state.record.id === lease.id && (await writeMove(trx, dialect, outcome.write, condition)),
      );
    }
    return written;
  });
}

/**
 * The heartbeats' part of MaintenanceStore.syncMaintenance: those a window in force covers enter
 * maintenance, those in maintenance that none covers leave it, each read and written under its
 * row's lock, so workers applying the same window at once move it once. Says how many moved.
 */
export async function syncHeartbeatMaintenance(
  db: Kysely<Database>,
  dialect: StoreDialect,
  active: readonly ActiveMaintenance[],
  at: string,
): Promise<number> {
  const { flag, forUpdate } = sqlOf(dialect);
  // The heartbeats some window covers, as one condition.
  const covered =
    active.length === 0
      ? sql`false`
      : sql.join(
          active.map((a) =>
            a.heartbeat_ids === null
              ? sql`user_id = ${a.user_id}`
              : a.heartbeat_ids.length === 0
                ? sql`false`
                : sql`(user_id = ${a.user_id} and id in (${sql.join([...a.heartbeat_ids])}))`,
          ),
          sql` or `,
        );
  // Only the heartbeats that move: a cycle that moves none (every cycle but a window's edges) reads
  // them without taking a lock.
  const moving = sql`(maintenance_since is null and is_enabled = ${flag(true)} and (${covered}))
    or (maintenance_since is not null and not (${covered}))`;
  const { rows: candidates } = await sql<{ id: number }>`select id from heartbeats where ${moving} limit 1`.execute(db);
  if (candidates.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<Row>`select * from heartbeats where ${moving}
      order by id${sql.raw(forUpdate)}`.execute(trx);
    let moved = 0;
    for (const row of rows) {
      const state = stateFromRow(row);
      const windows = active.filter(
        (a) => a.user_id === state.user_id && (a.heartbeat_ids === null || a.heartbeat_ids.includes(state.record.id)),
      );
      const since = windows.map((w) => new Date(w.started_at).toISOString()).sort()[0];
      const write = since === undefined ? maintenanceEnded(state, at) : maintenanceStarted(state, since);
      if (write !== null && (await writeMove(trx, dialect, write))) moved++;
    }
    return moved;
  });
}
