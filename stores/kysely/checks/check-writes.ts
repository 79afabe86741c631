import type {
  BlacklistCheckOutcome,
  BlacklistStatus,
  DeviceCheckOutcome,
  DeviceStatus,
  RecordedCheck,
} from '../../../core/index.ts';
import { eventValues, resultValues } from './result-rows.ts';
import type { EventValues, ResultValues } from './result-rows.ts';
import { stampText } from '../rows.ts';

// A recorded check as the SQL writers bind it: the record's new state as column values, its
// result rows and events ready to insert. Timestamps in the one text form the store writes.

export interface CheckWrite {
  id: number;
  token: string;
  checked_at: string;
  next_check_at: string;
  results: ResultValues[];
  events: EventValues[];
}

export interface DeviceWrite extends CheckWrite {
  previous_status: DeviceStatus;
  status: DeviceStatus;
  consecutive_failures: number;
  /** The results by probe name, to merge into `last_results`: probes that did not run keep theirs. */
  last_results: Record<string, unknown>;
}

export interface BlacklistWrite extends CheckWrite {
  last_status: BlacklistStatus;
  /** JSON arrays, as the columns hold them. */
  listed_on: string;
  failed_zones: string;
  listings: string;
  rdns: string | null;
  /** The claim's maintenance_since: the write's fence, and whether it keeps the announced listings. */
  maintenance_since: string | null;
}

/** What every kind of check writes: its lease, its times, its result rows and its events. */
function checkWrite({ lease, outcome }: RecordedCheck<DeviceCheckOutcome | BlacklistCheckOutcome>): CheckWrite {
  return {
    id: lease.id,
    token: lease.token,
    checked_at: stampText(outcome.checked_at),
    next_check_at: stampText(outcome.next_check_at),
    results: outcome.results.map(resultValues),
    events: outcome.events.map(eventValues),
  };
}

export function deviceWrite({ lease, outcome }: RecordedCheck<DeviceCheckOutcome>): DeviceWrite {
  const lastResults: Record<string, unknown> = {};
  // Kept as the engine handed them over, as the memory store keeps them.
  for (const result of outcome.results) lastResults[result.probe] = result;
  return {
    ...checkWrite({ lease, outcome }),
    previous_status: outcome.previous_status,
    status: outcome.status,
    consecutive_failures: outcome.consecutive_failures,
    last_results: lastResults,
  };
}

export function blacklistWrite({ lease, outcome }: RecordedCheck<BlacklistCheckOutcome>): BlacklistWrite {
  return {
    ...checkWrite({ lease, outcome }),
    last_status: outcome.last_status,
    listed_on: JSON.stringify(outcome.listed_on),
    failed_zones: JSON.stringify(outcome.failed_zones),
    listings: JSON.stringify(outcome.listings),
    rdns: outcome.rdns,
    maintenance_since: outcome.maintenance_since == null ? null : stampText(outcome.maintenance_since),
  };
}

/**
 * Splits a batch into rounds in which each record appears once, in input order. A batch naming a
 * record twice is odd, but the answer must be what writing the checks one after another gives
 * (the first write clears the lease, so a second under the same lease fails): set-based
 * statements see one row per record, so each round is one statement, run in order.
 */
export function rounds<T extends { id: number }>(writes: readonly T[]): { index: number; write: T }[][] {
  const seen = new Map<number, number>();
  const out: { index: number; write: T }[][] = [];
  writes.forEach((write, index) => {
    const round = seen.get(write.id) ?? 0;
    seen.set(write.id, round + 1);
    (out[round] ??= []).push({ index, write });
  });
  return out;
}
