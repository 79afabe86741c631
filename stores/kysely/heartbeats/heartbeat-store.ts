import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type {
  ActiveMaintenance,
  ClaimedHeartbeat,
  ClaimRequest,
  HeartbeatChange,
  HeartbeatLateOutcome,
  HeartbeatPing,
  HeartbeatTimeline,
  NewHeartbeat,
  PageRequest,
  ReceivedPing,
  RecordChange,
  RecordedCheck,
  ReportRange,
  ResultsPage,
  StatusTotals,
  StoredHeartbeat,
  Timestamp,
  UpdateResult,
} from '../../../core/index.ts';
import {
  firstTimelineChange,
  HEARTBEAT_TIMELINE_STATES,
  newHeartbeatState,
  PINGS_KEPT,
  sameValue,
  settingsWrite,
  type HeartbeatTimelineState,
} from '../../../core/internal.ts';
import { sqlOf } from '../drivers/sql-of.ts';
import { timelineTotals, type Timeline } from '../reports/timeline-reads.ts';
import { timelinesOf, type TimelineTables } from '../reports/status-timelines.ts';
import { stampText, toId, toStamp } from '../rows.ts';
import type { Database } from '../schema.ts';
import type { StoreContext } from '../store-context.ts';
import { heartbeatFromRow, newStateRow, stateFromRow } from './heartbeat-rows.ts';
import type { HeartbeatPingsTable } from './heartbeat-schema.ts';
import { writeTimelineChange } from './heartbeat-timeline.ts';
import { oldestKeptPing, recordPings } from './heartbeat-ping-writes.ts';
import { claimLate, recordLate, syncHeartbeatMaintenance, writeMove } from './heartbeat-writes.ts';

const TIMELINE: Timeline<HeartbeatTimelineState> = {
  owners: 'heartbeats',
  changes: 'heartbeat_status_changes',
  owner: 'heartbeat_id',
  states: HEARTBEAT_TIMELINE_STATES,
  downEnds: 'heartbeat_status_changes_down_ends',
};

const TABLES: TimelineTables = { owners: 'heartbeats', changes: 'heartbeat_status_changes', owner: 'heartbeat_id' };

function pingFromRow(row: Selectable<HeartbeatPingsTable>): HeartbeatPing {
  return {
    id: toId(row.id),
    kind: row.kind,
    exit_status: row.exit_status,
    received_at: toStamp(row.received_at),
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    remote_addr: row.remote_addr,
    user_agent: row.user_agent,
    body: row.body,
    rid: row.rid,
  };
}

/**
 * The heartbeats of the SQL store (docs/heartbeats.md; HeartbeatStore). Writes that change what a
 * report shows (a status, an incident) count as writes for the change marker; pings that change
 * no status do not, so a busy ping stream does not empty the kept answers.
 */
export class KyselyHeartbeats {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  createHeartbeat(userId: number, heartbeat: NewHeartbeat): Promise<StoredHeartbeat> {
    const { dialect } = this.#ctx;
    return this.#ctx.write((db) =>
      db.transaction().execute(async (trx) => {
        const draft = newHeartbeatState(userId, 0, heartbeat);
        const row = await trx
          .insertInto('heartbeats')
          .values(newStateRow(dialect, draft))
          .returningAll()
          .executeTakeFirstOrThrow();
        const state = stateFromRow(row);
        await writeTimelineChange(trx, userId, state.record.id, firstTimelineChange(state));
        return state.record;
      }),
    );
  }

  listHeartbeats(userId: number, page: PageRequest): Promise<StoredHeartbeat[]> {
    return this.#ctx.run(async (db) =>
      (
        await db
          .selectFrom('heartbeats')
          .selectAll()
          .where('user_id', '=', userId)
          .where('id', '>', page.afterId)
          .orderBy('id')
          .limit(page.limit)
          .execute()
      ).map(heartbeatFromRow),
    );
  }

  getHeartbeat(userId: number, id: number): Promise<StoredHeartbeat | undefined> {
    return this.#ctx.run(async (db) => {
      const row = await db
        .selectFrom('heartbeats')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row === undefined ? undefined : heartbeatFromRow(row);
    });
  }

  /**
   * A PATCH, under the row's lock: written when the row still holds what the change was judged
   * against, else judged again (`reapply`) against the row as it is now.
   */
  updateHeartbeat(
    userId: number,
    id: number,
    change: RecordChange<StoredHeartbeat, HeartbeatChange>,
  ): Promise<UpdateResult<StoredHeartbeat>> {
    const { dialect } = this.#ctx;
    return this.#ctx.write((db) =>
      db.transaction().execute(async (trx) => {
        const { rows } = await sql<Selectable<Database['heartbeats']>>`select * from heartbeats
          where id = ${id} and user_id = ${userId}${sql.raw(sqlOf(dialect).forUpdate)}`.execute(trx);
        if (rows[0] === undefined) return undefined;
        const state = stateFromRow(rows[0]);
        const current = state.record as unknown as Record<string, unknown>;
        const from = change.from as unknown as Record<string, unknown>;
        let now: Omit<RecordChange<StoredHeartbeat, HeartbeatChange>, 'from' | 'reapply'> | null = change;
        if (!change.fields.every((name) => sameValue(current[name], from[name]))) {
          if (change.reapply === undefined) return { stale: true as const };
          now = change.reapply(structuredClone(state.record));
        }
        if (now === null) return { updated: state.record };
        const write = settingsWrite(state, now.to, now.at);
        await writeMove(trx, dialect, write);
        return { updated: write.state.record };
      }),
    );
  }

  deleteHeartbeat(userId: number, id: number): Promise<boolean> {
    return this.#ctx.write(async (db) => {
      const { numDeletedRows } = await db
        .deleteFrom('heartbeats')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return numDeletedRows > 0n;
    });
  }

  listHeartbeatPings(userId: number, id: number, page: ResultsPage): Promise<HeartbeatPing[] | undefined> {
    return this.#ctx.run(async (db) => {
      const owner = await db
        .selectFrom('heartbeats')
        .select(['id', 'ping_count'])
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (owner === undefined) return undefined;
      let query = db.selectFrom('heartbeat_pings').selectAll().where('heartbeat_id', '=', id);
      // The last PINGS_KEPT only: past them, a heartbeat holds up to a hundred more between its
      // trims (heartbeat-ping-writes.ts, `trimDue`).
      if (Number(owner.ping_count) > PINGS_KEPT)
        query = query.where('id', '>=', sql<number>`coalesce(${oldestKeptPing(id)}, 0)`);
      if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
      return (await query.orderBy('id', 'desc').limit(page.limit).execute()).map(pingFromRow);
    });
  }

  heartbeatStatusTotals(
    userId: number,
    id: number,
    range: ReportRange,
  ): Promise<StatusTotals<HeartbeatTimelineState> | undefined> {
    return this.#ctx.run((db) => timelineTotals(db, this.#ctx.dialect, TIMELINE, userId, id, range));
  }

  heartbeatTimelines(userId: number, ids: readonly number[], range: ReportRange): Promise<HeartbeatTimeline[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return Promise.resolve([]);
    return this.#ctx.run(async (db) => {
      const rows = await db
        .selectFrom('heartbeats')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', 'in', wanted)
        .orderBy('id')
        .execute();
      const timelines = await timelinesOf<HeartbeatTimelineState>(db, this.#ctx.dialect, TABLES, userId, wanted, range);
      return rows.map((row) => {
        const { ping_token: _token, ...heartbeat } = heartbeatFromRow(row);
        return { heartbeat, changes: timelines.get(heartbeat.id) ?? [] };
      });
    });
  }

  async recordPings(pings: readonly ReceivedPing[]): Promise<boolean[]> {
    const { found, changed } = await this.#ctx.run((db) => recordPings(db, this.#ctx.dialect, pings));
    if (changed) this.#ctx.writes++;
    return found;
  }

  claimLateHeartbeats(claim: ClaimRequest): Promise<ClaimedHeartbeat[]> {
    return this.#ctx.run((db) => claimLate(db, this.#ctx.dialect, claim));
  }

  recordLateHeartbeats(checks: readonly RecordedCheck<HeartbeatLateOutcome>[]): Promise<boolean[]> {
    return this.#ctx.write((db) => recordLate(db, this.#ctx.dialect, checks));
  }

  deleteHeartbeatPingsBefore(before: Timestamp, limit: number): Promise<number> {
    const { rowKey } = sqlOf(this.#ctx.dialect);
    return this.#ctx.run(async (db) => {
      const { numAffectedRows } = await sql`delete from heartbeat_pings where ${sql.raw(rowKey)} in (
          select ${sql.raw(rowKey)} from heartbeat_pings where received_at < ${stampText(before)}
          order by received_at limit ${limit})`.execute(db);
      return Number(numAffectedRows ?? 0n);
    });
  }

  ownedIds(userId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.#ctx.run(async (db) =>
      (
        await db
          .selectFrom('heartbeats')
          .select('id')
          .where('user_id', '=', userId)
          .where('id', 'in', [...ids])
          .execute()
      ).map((row) => toId(row.id)),
    );
  }

  syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): Promise<number> {
    return this.#ctx.write((db) => syncHeartbeatMaintenance(db, this.#ctx.dialect, active, stampText(at)));
  }
}
