import { toTimestamp } from '../clock.ts';
import type {
  EventType,
  Heartbeat,
  HeartbeatDownCause,
  HeartbeatStatus,
  NewHeartbeat,
  NewMonitoringEvent,
  StoredHeartbeat,
  Timestamp,
} from '../records/index.ts';
import type { IncidentCause } from '../reports/report-records.ts';
import { deadlineAfter } from './schedule.ts';

// A heartbeat's state and how it moves (docs/heartbeats.md, "Statuses"). The stores keep it and
// write what these functions answer, in one transaction with the ping, the events and the
// timeline; every store decides alike because the decisions are made here.

/** Runs kept open at once per heartbeat; a start beyond it forgets the oldest. */
export const MAX_OPEN_RUNS = 10;
/** The characters of the last ping's body an event carries. */
export const BODY_EXCERPT_CHARS = 1_000;

/** What the store keeps of a heartbeat beyond its record. */
export interface HeartbeatState {
  record: StoredHeartbeat;
  user_id: number;
  /** The last success, from which the next deadline is counted; null before the first. */
  last_success_at: Timestamp | null;
  /** The runs started and not ended, by run id ('' for a start without one): when each began. */
  runs: Record<string, Timestamp>;
  /** Why it went down, while it is down (an incident reopened after a window names it). */
  down_cause: HeartbeatDownCause | null;
  /** The last ping's body (its excerpt, for `heartbeat.down`); null when it had none. */
  last_body: string | null;
  /** When the maintenance window that covers it began; null outside one. */
  maintenance_since: Timestamp | null;
}

/**
 * The state the status timeline records (docs/heartbeats.md, "Events, incidents and reports"): `paused` while disabled,
 * `maintenance` while a window covers it, else the status. Incidents are its `down` periods.
 */
export type HeartbeatTimelineState = HeartbeatStatus | 'maintenance';

export const HEARTBEAT_TIMELINE_STATES = ['new', 'up', 'started', 'down', 'paused', 'maintenance'] as const;

/** One change of the timeline, with the incident cause when it enters `down`. */
export interface HeartbeatTimelineChange {
  from: HeartbeatTimelineState | null;
  to: HeartbeatTimelineState;
  at: Timestamp;
  cause: IncidentCause | null;
}

/** What a store writes for one change of a heartbeat, all in one transaction or none of it. */
export interface HeartbeatWrite {
  state: HeartbeatState;
  events: NewMonitoringEvent[];
  /** Null when the timeline's state did not change. */
  timeline: HeartbeatTimelineChange | null;
}

export function timelineState(state: HeartbeatState): HeartbeatTimelineState {
  if (!state.record.is_enabled) return 'paused';
  if (state.maintenance_since !== null) return 'maintenance';
  return state.record.status;
}

/** An incident's cause: the heartbeat itself, and why. */
export function incidentCause(cause: HeartbeatDownCause | null): IncidentCause | null {
  return cause === null ? null : { probe: 'heartbeat', error: cause };
}

/** The timeline change between two states, dated `at`; null when the state the timeline records is the same. */
export function timelineChange(
  before: HeartbeatState,
  after: HeartbeatState,
  at: Timestamp,
): HeartbeatTimelineChange | null {
  const from = timelineState(before);
  const to = timelineState(after);
  if (from === to) return null;
  return { from, to, at, cause: to === 'down' ? incidentCause(after.down_cause) : null };
}

/**
 * When the heartbeat must next be told, from its state: after a success for an `up` one, within
 * the oldest open run's limit for a `started` one, never for the others.
 */
export function nextDueMs(state: HeartbeatState): number | null {
  const { record } = state;
  if (!record.is_enabled) return null;
  if (record.status === 'started') {
    const starts = Object.values(state.runs).map((at) => Date.parse(at));
    if (starts.length === 0) return null;
    return Math.min(...starts) + (record.max_runtime_s ?? record.grace_s) * 1000;
  }
  if (record.status === 'up' && state.last_success_at !== null) {
    return deadlineAfter(record, Date.parse(state.last_success_at));
  }
  return null;
}

/** The state with `next_due_at` worked out again. */
export function withDeadline(state: HeartbeatState): HeartbeatState {
  const due = nextDueMs(state);
  return { ...state, record: { ...state.record, next_due_at: due === null ? null : toTimestamp(due) } };
}

/**
 * When the engine is to look at the heartbeat for lateness: its deadline, while it is `up` or
 * `started`, enabled and outside a window; null otherwise (nothing to find late).
 */
export function lateCheckAt(state: HeartbeatState): Timestamp | null {
  const { record } = state;
  if (!record.is_enabled || state.maintenance_since !== null) return null;
  if (record.status !== 'up' && record.status !== 'started') return null;
  return record.next_due_at;
}

/** The heartbeat as announced: the record without its token (whoever hears an event cannot ping). */
export function shownWithoutToken(record: StoredHeartbeat): Heartbeat {
  const { ping_token: _token, ...shown } = record;
  return shown;
}

/** The body's excerpt an event carries. */
export function bodyExcerpt(body: string | null): string | null {
  if (body === null) return null;
  const chars = Array.from(body.slice(0, BODY_EXCERPT_CHARS * 2));
  return chars.length <= BODY_EXCERPT_CHARS ? chars.join('') : chars.slice(0, BODY_EXCERPT_CHARS).join('');
}

/**
 * `heartbeat.down` or `heartbeat.up`, carrying the heartbeat as the change left it, and the exit
 * status of the ping that took it down for the cause `exit_status`.
 */
export function heartbeatEvent(
  type: Extract<EventType, 'heartbeat.down' | 'heartbeat.up'>,
  previous: HeartbeatStatus,
  after: HeartbeatState,
  at: Timestamp,
  exitStatus: number | null = null,
): NewMonitoringEvent {
  return {
    type,
    created_at: at,
    data: {
      ...shownWithoutToken(after.record),
      previous_status: previous,
      status: after.record.status,
      cause: type === 'heartbeat.down' ? after.down_cause : null,
      last_ping_body: bodyExcerpt(after.last_body),
      exit_status: type === 'heartbeat.down' && after.down_cause === 'exit_status' ? exitStatus : null,
    },
  };
}

/** A new heartbeat's state: `new` (or `paused` when created disabled), awaiting nothing. */
export function newHeartbeatState(userId: number, id: number, heartbeat: NewHeartbeat): HeartbeatState {
  return {
    record: {
      ...heartbeat,
      channel_ids: heartbeat.channel_ids ?? null,
      id,
      status: heartbeat.is_enabled ? 'new' : 'paused',
      status_since: heartbeat.created_at,
      last_ping_at: null,
      last_duration_ms: null,
      next_due_at: null,
    },
    user_id: userId,
    last_success_at: null,
    runs: {},
    down_cause: null,
    last_body: null,
    maintenance_since: null,
  };
}

/** The first change of a new heartbeat's timeline. */
export function firstTimelineChange(state: HeartbeatState): HeartbeatTimelineChange {
  return { from: null, to: timelineState(state), at: state.record.created_at, cause: null };
}
