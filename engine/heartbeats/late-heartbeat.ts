import type { ClaimedHeartbeat, HeartbeatLateOutcome } from '../../core/index.ts';
import { lateWrite, type Clock, type HeartbeatStore } from '../../core/internal.ts';
import type { CheckKind } from '../scheduler/kind-runner.ts';

/**
 * What a worker finds of a heartbeat claimed past its deadline (docs/heartbeats.md, "Lateness"):
 * `down` from the deadline it missed, `late` when nothing came, `ran_too_long` when a run did not
 * end in time. A claim names only heartbeats whose deadline passed, so the judgement is the
 * state's alone (core's `lateWrite`); one whose deadline is still ahead when judged (the engine's
 * clock behind the claim's) is left for a later claim, its lease lapsing.
 */
export function judgeLateHeartbeat(claimed: ClaimedHeartbeat, nowMs: number): HeartbeatLateOutcome | null {
  const write = lateWrite(claimed.state, Math.max(nowMs, Date.parse(claimed.due_at)));
  if (write === null) return null;
  const cause = write.state.down_cause ?? 'late';
  return {
    previous_status: claimed.state.record.status,
    write,
    results: [{ probe: 'heartbeat', ok: false, error: cause }],
  };
}

/** A heartbeat not late after all: its state written as it is, which drops the lease and puts its deadline back. */
const NOTHING: HeartbeatLateOutcome['results'] = [];

/**
 * Heartbeats past their deadline as a kind of the claim loop (engine/kinds.ts): claimed from the
 * index on their deadline, judged here, written in batches fenced by the lease and the status
 * claimed, so that with several workers each lateness is announced once.
 */
export function heartbeatKind(
  store: Pick<HeartbeatStore, 'claimLateHeartbeats' | 'recordLateHeartbeats'>,
  clock: Clock,
): CheckKind<ClaimedHeartbeat, HeartbeatLateOutcome> {
  return {
    name: 'heartbeat',
    claim: (request) => store.claimLateHeartbeats(request),
    async check(claimed) {
      const outcome = judgeLateHeartbeat(claimed, clock.now());
      if (outcome !== null) return outcome;
      return {
        previous_status: claimed.state.record.status,
        write: { state: claimed.state, events: [], timeline: null },
        results: NOTHING,
      };
    },
    record: (checks) => store.recordLateHeartbeats(checks),
  };
}
