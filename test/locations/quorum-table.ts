/**
 * What the table-driven tests of the quorum decision share (engine/devices/location-quorum.ts):
 * locations and devices described briefly, a location's result, and one test per row.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  decideQuorum,
  type LocationResult,
  type LocationState,
  type QuorumDecision,
  type QuorumDevice,
  type QuorumSettings,
} from '../../engine/devices/location-quorum.ts';

export const T = Date.parse('2026-03-01T12:00:00.000Z');
export const S = 1000;
export const SETTINGS: QuorumSettings = { retryDelayS: 30, probeTimeoutMs: 10_000, failuresBeforeDown: 2 };

/**
 * A location: `up`/`fail` with a result `ago` seconds old, `none` never checked; live unless told.
 * A failing one has failed `failures` checks in a row (1 unless told), the first `failingFor`
 * seconds ago (its last one, `ago`, unless told).
 */
export function at(
  name: string,
  last: 'up' | 'fail' | 'none',
  options: { ago?: number; live?: boolean; failingFor?: number; failures?: number; announced?: boolean } = {},
): LocationState {
  const ago = options.ago ?? 5;
  return {
    name,
    live: options.live ?? true,
    leaseToken: `lease-${name}`,
    last: last === 'none' ? null : { ok: last === 'up', checkedAtMs: T - ago * S },
    failingSinceMs: last === 'fail' ? T - (options.failingFor ?? ago) * S : null,
    failures: last === 'fail' ? (options.failures ?? 1) : 0,
    announced: options.announced ?? false,
  };
}

/** A device; one `up` has been up for ten minutes, unless told. */
export function device(
  status: QuorumDevice['status'],
  locations: LocationState[],
  extra: Partial<QuorumDevice> = {},
): QuorumDevice {
  return {
    status,
    validatingSinceMs: null,
    upSinceMs: status === 'up' ? T - 600 * S : null,
    quorum: 2,
    intervalS: 60,
    locations,
    ...extra,
  };
}

export const result = (location: string, ok: boolean, token = `lease-${location}`, ours = false): LocationResult => ({
  location,
  leaseToken: token,
  ok,
  ours,
  checkedAtMs: T,
});
/** A check that failed on the worker's side (engine/our-failures.ts), not the target's. */
export const ours = (location: string) => result(location, false, `lease-${location}`, true);

export interface Row {
  name: string;
  device: QuorumDevice;
  result: LocationResult;
  settings?: Partial<QuorumSettings>;
  expect: Partial<
    Pick<QuorumDecision, 'status' | 'quorumState' | 'event' | 'locationFailing' | 'secondOpinion' | 'upSinceMs'>
  > & {
    verdicts?: Record<string, string>;
  };
}

/** One test per row: the decision's fields named in `expect` are what it says. */
export function decideRows(rows: readonly Row[]): void {
  for (const row of rows) {
    it(row.name, () => {
      const decision = decideQuorum(row.device, row.result, { ...SETTINGS, ...row.settings });
      assert.ok(decision, 'not fenced');
      const picked: Record<string, unknown> = {};
      for (const key of Object.keys(row.expect)) picked[key] = decision[key as keyof QuorumDecision];
      assert.deepEqual(picked, row.expect);
    });
  }
}
