import { toTimestamp } from '../clock.ts';
import type {
  HeartbeatDownCause,
  HeartbeatPing,
  HeartbeatSettings,
  ReceivedPing,
  Timestamp,
} from '../records/index.ts';
import {
  heartbeatEvent,
  MAX_OPEN_RUNS,
  timelineChange,
  withDeadline,
  type HeartbeatState,
  type HeartbeatWrite,
} from './heartbeat-state.ts';

// The moves of a heartbeat (docs/heartbeats.md, "Statuses"): a ping, lateness found by a worker,
// a change of its settings, a maintenance window. Each answers what the store writes.

/** What a ping does: the write, and the ping as kept (its run's duration filled in). */
export interface PingEffect extends HeartbeatWrite {
  ping: Omit<HeartbeatPing, 'id'>;
}

/** A failure's status: `down`, unless a window holds the heartbeat's status (then unchanged). */
function failed(before: HeartbeatState, state: HeartbeatState, cause: HeartbeatDownCause): HeartbeatState {
  if (state.maintenance_since !== null) return state;
  if (before.record.status === 'down') return state;
  return { ...state, runs: {}, down_cause: cause, record: { ...state.record, status: 'down' } };
}

/** The runs with one more started at `at` under `key`, the oldest forgotten beyond the bound. */
function withRun(runs: Record<string, Timestamp>, key: string, at: Timestamp): Record<string, Timestamp> {
  const next = { ...runs };
  delete next[key];
  const open = Object.entries(next).sort(([, a], [, b]) => Date.parse(a) - Date.parse(b));
  while (open.length >= MAX_OPEN_RUNS) delete next[open.shift()![0]];
  next[key] = at;
  return next;
}

/**
 * A ping applied to a heartbeat. A start opens a run under its `rid`; a success, a fail or an
 * exit status ends the run of the same `rid` (measuring it). A success (exit status 0) makes it
 * `up` (`started` while other runs are open), unless the run it ends was shorter than
 * `min_runtime_s`; a failure makes it `down`. A paused heartbeat keeps the ping and its status; a
 * log ping changes nothing. A heartbeat in a maintenance window records everything but never goes
 * down.
 */
export function applyPing(before: HeartbeatState, received: ReceivedPing): PingEffect {
  const at = received.received_at;
  const atMs = Date.parse(at);
  const { ping_token: _token, ...fields } = received;
  const ping: Omit<HeartbeatPing, 'id'> = { ...fields, duration_ms: null };
  if (received.kind === 'log') return { state: before, ping, events: [], timeline: null };
  // The rest of a ping's moves need the heartbeat enabled; a paused one keeps only its last ping.
  let state: HeartbeatState = {
    ...before,
    last_body: received.body,
    record: { ...before.record, last_ping_at: at },
  };
  if (!before.record.is_enabled) return { state, ping, events: [], timeline: null };

  const key = received.rid ?? '';
  if (received.kind === 'start') {
    state = { ...state, runs: withRun(state.runs, key, at) };
    if (before.record.status !== 'down') state = { ...state, record: { ...state.record, status: 'started' } };
  } else {
    const started = state.runs[key];
    if (started !== undefined) {
      ping.duration_ms = Math.max(0, atMs - Date.parse(started));
      const runs = { ...state.runs };
      delete runs[key];
      state = { ...state, runs, record: { ...state.record, last_duration_ms: ping.duration_ms } };
    }
    const success = received.kind === 'success' || (received.kind === 'exit' && received.exit_status === 0);
    const { min_runtime_s } = before.record;
    if (!success) state = failed(before, state, received.kind === 'fail' ? 'failed' : 'exit_status');
    else if (ping.duration_ms !== null && min_runtime_s !== null && ping.duration_ms < min_runtime_s * 1000)
      state = failed(before, state, 'ran_too_short');
    else {
      const status = Object.keys(state.runs).length > 0 ? 'started' : 'up';
      state = { ...state, last_success_at: at, down_cause: null, record: { ...state.record, status } };
    }
  }
  return { ...settle(before, state, at, received.exit_status), ping };
}

/**
 * The status's time, deadline, events and timeline of a move to `state` at `at`; `exitStatus` is
 * the status of the ping that made the move, for a `heartbeat.down` it causes.
 */
function settle(
  before: HeartbeatState,
  state: HeartbeatState,
  at: Timestamp,
  exitStatus: number | null = null,
): HeartbeatWrite {
  const previous = before.record.status;
  let after = state;
  if (after.record.status !== previous) after = { ...after, record: { ...after.record, status_since: at } };
  after = withDeadline(after);
  const events = [];
  if (after.record.status === 'down' && previous !== 'down')
    events.push(heartbeatEvent('heartbeat.down', previous, after, at, exitStatus));
  if (previous === 'down' && after.record.status !== 'down')
    events.push(heartbeatEvent('heartbeat.up', previous, after, at));
  return { state: after, events, timeline: timelineChange(before, after, after.record.status_since) };
}

/**
 * A worker found the heartbeat late (docs/heartbeats.md, "Lateness"): nothing by its deadline, or
 * a run that did not end in time. It is `down` from the deadline it missed, so its incident starts
 * there. Null when there is nothing to find: it is not `up` or `started`, or not due at `nowMs`.
 */
export function lateWrite(before: HeartbeatState, nowMs: number): HeartbeatWrite | null {
  const { record } = before;
  if (!record.is_enabled || before.maintenance_since !== null || record.next_due_at === null) return null;
  if (record.status !== 'up' && record.status !== 'started') return null;
  if (Date.parse(record.next_due_at) > nowMs) return null;
  const cause: HeartbeatDownCause = record.status === 'started' ? 'ran_too_long' : 'late';
  const missed = record.next_due_at;
  const state = failed(before, before, cause);
  return settle(before, state, missed);
}

/**
 * A change of settings (PATCH): disabling pauses it (its runs forgotten), enabling makes it `new`
 * again (nothing awaited until its next ping), and any change of timing moves the deadline. No
 * event: the spec announces only `down` and `up`.
 */
export function settingsWrite(
  before: HeartbeatState,
  to: HeartbeatSettings & { ping_token: string },
  at: Timestamp,
): HeartbeatWrite {
  let state: HeartbeatState = { ...before, record: { ...before.record, ...to } };
  if (before.record.is_enabled && !to.is_enabled) {
    state = { ...state, runs: {}, record: { ...state.record, status: 'paused', status_since: at } };
  } else if (!before.record.is_enabled && to.is_enabled) {
    state = {
      ...state,
      runs: {},
      last_success_at: null,
      down_cause: null,
      record: { ...state.record, status: 'new', status_since: at },
    };
  }
  state = withDeadline(state);
  return { state, events: [], timeline: timelineChange(before, state, at) };
}

/**
 * A maintenance window began covering the heartbeat at `since`: its deadline is held until the
 * window ends. Null when nothing changes (it is paused, or already in one).
 */
export function maintenanceStarted(before: HeartbeatState, since: Timestamp): HeartbeatWrite | null {
  if (!before.record.is_enabled || before.maintenance_since !== null) return null;
  const state = { ...before, maintenance_since: since };
  return { state, events: [], timeline: timelineChange(before, state, since) };
}

/**
 * No window covers it any more (at `at`): a deadline that passed inside the window becomes the
 * window's end, so a heartbeat still not told is found late from then on.
 */
export function maintenanceEnded(before: HeartbeatState, at: Timestamp): HeartbeatWrite | null {
  if (before.maintenance_since === null) return null;
  let state: HeartbeatState = { ...before, maintenance_since: null };
  const due = state.record.next_due_at;
  if (due !== null && Date.parse(due) < Date.parse(at)) {
    state = { ...state, record: { ...state.record, next_due_at: toTimestamp(Date.parse(at)) } };
  }
  return { state, events: [], timeline: timelineChange(before, state, at) };
}
