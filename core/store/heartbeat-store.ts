import type { HeartbeatState, HeartbeatTimelineState, HeartbeatWrite } from '../heartbeats/heartbeat-state.ts';
import type {
  Heartbeat,
  HeartbeatPing,
  HeartbeatSettings,
  HeartbeatStatus,
  NewHeartbeat,
  ReceivedPing,
  StoredHeartbeat,
  Timestamp,
} from '../records/index.ts';
import type { ReportRange, StatusTotals } from '../reports/report-records.ts';
import type { Claimed, ClaimRequest, RecordedCheck, ResultsPage } from './monitoring-store.ts';
import type { PageRequest, RecordChange, UpdateResult } from './store-calls.ts';

/** What a PATCH of a heartbeat writes: its settings and its ping token (a new one when rotated). */
export type HeartbeatChange = HeartbeatSettings & { ping_token: string };

/** A heartbeat claimed for its lateness to be judged, with the state the judgement reads. */
export interface ClaimedHeartbeat extends Claimed<StoredHeartbeat> {
  state: HeartbeatState;
}

/** What a worker found of a claimed heartbeat: the write that makes it `down` (heartbeat-moves.ts `lateWrite`). */
export interface HeartbeatLateOutcome {
  /** The status the claim saw: written only if the heartbeat still has it. */
  previous_status: HeartbeatStatus;
  write: HeartbeatWrite;
  /** For the scheduler's counts: one result, failed, naming the cause. */
  results: { probe: 'heartbeat'; ok: false; error: string }[];
}

/**
 * What heartbeats need of a store (docs/heartbeats.md): the resource, its pings, and for the
 * engine the claim of heartbeats past their deadline. Every change of status is written with its
 * events, its status timeline row and its incident in one transaction; a status change is
 * conditional on the status read, so that two writers never announce one change twice. `Store`
 * extends it.
 */
export interface HeartbeatStore {
  createHeartbeat(userId: number, heartbeat: NewHeartbeat): Promise<StoredHeartbeat>;
  /** Ascending by id. */
  listHeartbeats(userId: number, page: PageRequest): Promise<StoredHeartbeat[]>;
  getHeartbeat(userId: number, id: number): Promise<StoredHeartbeat | undefined>;
  /**
   * Compare-and-set on `change.fields` and the token, as `updateDevice`; the heartbeat's state
   * moves as core's `settingsWrite` says (pause, resume, a new deadline), in the same transaction.
   */
  updateHeartbeat(
    userId: number,
    id: number,
    change: RecordChange<StoredHeartbeat, HeartbeatChange>,
  ): Promise<UpdateResult<StoredHeartbeat>>;
  /** Deletes it with its pings, timeline and incidents; its token is unknown from then on. */
  deleteHeartbeat(userId: number, id: number): Promise<boolean>;
  /** Its pings, newest first (`GET /heartbeats/results`); undefined when it is not the user's. */
  listHeartbeatPings(userId: number, id: number, page: ResultsPage): Promise<HeartbeatPing[] | undefined>;
  /** How it spent `range` by its status timeline (core/heartbeats/heartbeat-state.ts `timelineState`). */
  heartbeatStatusTotals(
    userId: number,
    id: number,
    range: ReportRange,
  ): Promise<StatusTotals<HeartbeatTimelineState> | undefined>;

  /**
   * The user's heartbeats among `ids`, ascending by id, each with its status timeline over
   * `range`: the last change at or before its start, then every change inside it (a status page's
   * components, docs/status-pages.md).
   */
  heartbeatTimelines(userId: number, ids: readonly number[], range: ReportRange): Promise<HeartbeatTimeline[]>;

  /**
   * Records pings, in order, in one transaction: each finds its heartbeat by token (held until the
   * transaction ends), is applied with core's `applyPing`, and is kept with the heartbeat's last
   * 1,000. Answers, per ping, whether its token was a heartbeat's. All or none are written.
   */
  recordPings(pings: readonly ReceivedPing[]): Promise<boolean[]>;

  /**
   * Leases up to `claim.limit` heartbeats whose deadline passed by `claim.now` (enabled, `up` or
   * `started`, outside a maintenance window), earliest first, read from an index on the engine's
   * due time, as devices are claimed. A ping, a change or a window drops the lease.
   */
  claimLateHeartbeats(claim: ClaimRequest): Promise<ClaimedHeartbeat[]>;
  /** Writes each outcome while its lease holds and the status is still the one claimed; says which. */
  recordLateHeartbeats(checks: readonly RecordedCheck<HeartbeatLateOutcome>[]): Promise<boolean[]>;
  /** Deletes at most `limit` pings received before `before`; says how many. */
  deleteHeartbeatPingsBefore(before: Timestamp, limit: number): Promise<number>;
}

/** A heartbeat, without its token, and how its timeline moved over a range (`heartbeatTimelines`). */
export interface HeartbeatTimeline {
  heartbeat: Heartbeat;
  changes: { status: HeartbeatTimelineState; at: Timestamp }[];
}

/** The pings kept per heartbeat at most: the newest. */
export const PINGS_KEPT = 1_000;
