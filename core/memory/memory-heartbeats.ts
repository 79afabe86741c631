import { applyPing, maintenanceEnded, maintenanceStarted, settingsWrite } from '../heartbeats/heartbeat-moves.ts';
import {
  firstTimelineChange,
  lateCheckAt,
  newHeartbeatState,
  type HeartbeatState,
  type HeartbeatTimelineState,
  type HeartbeatWrite,
} from '../heartbeats/heartbeat-state.ts';
import type { HeartbeatPing, NewHeartbeat, ReceivedPing, StoredHeartbeat, Timestamp } from '../records/index.ts';
import type { ReportRange, StatusTotals } from '../reports/report-records.ts';
import {
  PINGS_KEPT,
  type ClaimedHeartbeat,
  type HeartbeatChange,
  type HeartbeatLateOutcome,
  type HeartbeatTimeline,
} from '../store/heartbeat-store.ts';
import { heartbeatShown } from '../store/record-changes.ts';
import type { ActiveMaintenance } from '../store/maintenance-store.ts';
import type { ClaimRequest, Lease, RecordedCheck, ResultsPage } from '../store/monitoring-store.ts';
import type { PageRequest, RecordChange, UpdateResult } from '../store/store-calls.ts';
import { changeNow, iso, ms } from './memory-rows.ts';
import type { MemoryTables } from './memory-tables.ts';

interface HeartbeatRow {
  state: HeartbeatState;
  /** When the engine is to judge its lateness (its deadline, or a claim's lease expiry); null: never. */
  dueAt: number | null;
  lease: Lease | null;
  /** Oldest first. */
  pings: HeartbeatPing[];
}

/**
 * The memory store's heartbeats (memory-store.ts; docs/heartbeats.md): the records, their pings,
 * the claims of late ones, and their part in maintenance windows. Every write goes through core's
 * moves (core/heartbeats/heartbeat-moves.ts), as the SQL store's do.
 */
export class MemoryHeartbeats {
  readonly #t: MemoryTables;
  readonly #rows = new Map<number, HeartbeatRow>();
  readonly #byToken = new Map<string, number>();
  #nextId = 1;
  #nextPing = 1;
  #nextLease = 1;

  constructor(tables: MemoryTables) {
    this.#t = tables;
    tables.channelListHolders.push(this);
  }

  /** Takes a deleted channel's id out of the user's heartbeats' `channel_ids`. */
  dropChannel(userId: number, channelId: number): void {
    for (const { state } of this.#rows.values()) {
      const ids = state.record.channel_ids;
      if (state.user_id === userId && ids?.includes(channelId)) {
        state.record.channel_ids = ids.filter((x) => x !== channelId);
      }
    }
  }

  #owned(userId: number, id: number): HeartbeatRow | undefined {
    const row = this.#rows.get(id);
    return row?.state.user_id === userId ? row : undefined;
  }

  /** Writes a move: the state, its events and timeline; any write drops a claim's lease. */
  #write(row: HeartbeatRow, write: HeartbeatWrite): void {
    const shown = heartbeatShown(row.state);
    // The token index follows the row (a rotation moves it).
    this.#byToken.delete(row.state.record.ping_token);
    row.state = structuredClone(write.state);
    this.#byToken.set(row.state.record.ping_token, row.state.record.id);
    row.lease = null;
    const due = lateCheckAt(row.state);
    row.dueAt = due === null ? null : ms(due);
    this.#t.keepEvents(row.state.user_id, write.events);
    if (write.timeline !== null)
      this.#t.reports.heartbeatChanged(row.state.user_id, row.state.record.id, write.timeline);
    if (heartbeatShown(row.state) !== shown) this.#t.changes.changed('heartbeat', row.state.record.id);
  }

  async createHeartbeat(userId: number, heartbeat: NewHeartbeat): Promise<StoredHeartbeat> {
    const state = newHeartbeatState(userId, this.#nextId++, structuredClone(heartbeat));
    state.record.created_at = iso(state.record.created_at);
    state.record.status_since = state.record.created_at;
    const id = state.record.id;
    this.#rows.set(id, { state, dueAt: null, lease: null, pings: [] });
    this.#byToken.set(state.record.ping_token, id);
    this.#t.reports.heartbeatChanged(userId, id, firstTimelineChange(state));
    this.#t.changes.changed('heartbeat', id);
    return structuredClone(state.record);
  }

  async listHeartbeats(userId: number, req: PageRequest): Promise<StoredHeartbeat[]> {
    const out: StoredHeartbeat[] = [];
    for (const [id, row] of this.#rows) {
      if (id <= req.afterId || row.state.user_id !== userId) continue;
      out.push(structuredClone(row.state.record));
      if (out.length >= req.limit) break;
    }
    return out;
  }

  async getHeartbeat(userId: number, id: number): Promise<StoredHeartbeat | undefined> {
    const row = this.#owned(userId, id);
    return row === undefined ? undefined : structuredClone(row.state.record);
  }

  async updateHeartbeat(
    userId: number,
    id: number,
    change: RecordChange<StoredHeartbeat, HeartbeatChange>,
  ): Promise<UpdateResult<StoredHeartbeat>> {
    const row = this.#owned(userId, id);
    if (row === undefined) return undefined;
    const now = changeNow(row.state.record, change);
    if (now === 'stale') return { stale: true };
    if (now === 'unchanged') return { updated: structuredClone(row.state.record) };
    this.#write(row, settingsWrite(row.state, now.to, now.at));
    return { updated: structuredClone(row.state.record) };
  }

  async deleteHeartbeat(userId: number, id: number): Promise<boolean> {
    const row = this.#owned(userId, id);
    if (row === undefined) return false;
    this.#rows.delete(id);
    this.#byToken.delete(row.state.record.ping_token);
    this.#t.reports.dropHeartbeat(id);
    this.#t.changes.changed('heartbeat', id);
    return true;
  }

  async listHeartbeatPings(userId: number, id: number, page: ResultsPage): Promise<HeartbeatPing[] | undefined> {
    const row = this.#owned(userId, id);
    if (row === undefined) return undefined;
    const out: HeartbeatPing[] = [];
    for (let i = row.pings.length - 1; i >= 0 && out.length < page.limit; i--) {
      const ping = row.pings[i]!;
      if (page.beforeId === undefined || ping.id < page.beforeId) out.push(structuredClone(ping));
    }
    return out;
  }

  async heartbeatStatusTotals(
    userId: number,
    id: number,
    range: ReportRange,
  ): Promise<StatusTotals<HeartbeatTimelineState> | undefined> {
    if (this.#owned(userId, id) === undefined) return undefined;
    return this.#t.reports.heartbeatTotals(id, range);
  }

  async heartbeatTimelines(userId: number, ids: readonly number[], range: ReportRange): Promise<HeartbeatTimeline[]> {
    return [...new Set(ids)]
      .sort((a, b) => a - b)
      .flatMap((id) => {
        const row = this.#owned(userId, id);
        if (row === undefined) return [];
        const { ping_token: _token, ...heartbeat } = structuredClone(row.state.record);
        return [{ heartbeat, changes: this.#t.reports.heartbeatTimeline(id, range) }];
      });
  }

  async recordPings(pings: readonly ReceivedPing[]): Promise<boolean[]> {
    return pings.map((received) => {
      const id = this.#byToken.get(received.ping_token);
      const row = id === undefined ? undefined : this.#rows.get(id);
      if (row === undefined) return false;
      const effect = applyPing(row.state, structuredClone(received));
      this.#write(row, effect);
      row.pings.push({ ...effect.ping, id: this.#nextPing++, received_at: iso(effect.ping.received_at) });
      if (row.pings.length > PINGS_KEPT) row.pings.splice(0, row.pings.length - PINGS_KEPT);
      return true;
    });
  }

  async claimLateHeartbeats(claim: ClaimRequest): Promise<ClaimedHeartbeat[]> {
    const now = ms(claim.now);
    const due = [...this.#rows.values()].filter(
      (row) => row.dueAt !== null && row.dueAt <= now && (row.lease === null || ms(row.lease.expires_at) <= now),
    );
    due.sort((a, b) => a.dueAt! - b.dueAt! || a.state.record.id - b.state.record.id);
    const token = `memory-heartbeat-lease-${this.#nextLease++}`;
    return due.slice(0, Math.max(0, claim.limit)).map((row) => {
      const lease: Lease = { id: row.state.record.id, token, owner: claim.owner, expires_at: iso(claim.leaseUntil) };
      const dueAt = iso(new Date(row.dueAt!).toISOString());
      row.lease = lease;
      // Due again when the lease runs out, should its worker never write (docs/engine.md, "Scheduling").
      row.dueAt = ms(claim.leaseUntil);
      return {
        record: structuredClone(row.state.record),
        state: structuredClone(row.state),
        lease: { ...lease },
        due_at: dueAt,
      };
    });
  }

  async recordLateHeartbeats(checks: readonly RecordedCheck<HeartbeatLateOutcome>[]): Promise<boolean[]> {
    return checks.map(({ lease, outcome }) => {
      const row = this.#rows.get(lease.id);
      if (row === undefined || row.lease === null || row.lease.token !== lease.token) return false;
      if (row.state.record.status !== outcome.previous_status) return false;
      this.#write(row, outcome.write);
      return true;
    });
  }

  async deleteHeartbeatPingsBefore(before: Timestamp, limit: number): Promise<number> {
    const cutoff = ms(before);
    let deleted = 0;
    for (const row of this.#rows.values()) {
      while (deleted < limit && row.pings.length > 0 && ms(row.pings[0]!.received_at) < cutoff) {
        row.pings.shift();
        deleted++;
      }
    }
    return deleted;
  }

  ownedIds(userId: number, ids: readonly number[]): number[] {
    return ids.filter((id) => this.#owned(userId, id) !== undefined);
  }

  /** Heartbeats into and out of the windows in force (MaintenanceStore.syncMaintenance); how many moved. */
  syncMaintenance(active: readonly ActiveMaintenance[], at: Timestamp): number {
    let moved = 0;
    for (const row of this.#rows.values()) {
      const { user_id: userId, record } = row.state;
      const windows = active.filter(
        (a) => a.user_id === userId && (a.heartbeat_ids === null || a.heartbeat_ids.includes(record.id)),
      );
      const since = windows.map((w) => iso(w.started_at)).sort()[0];
      const write = since === undefined ? maintenanceEnded(row.state, iso(at)) : maintenanceStarted(row.state, since);
      if (write === null) continue;
      this.#write(row, write);
      moved++;
    }
    return moved;
  }
}
