import type { DeviceStatus, LocationVerdict } from '../../core/index.ts';

// The quorum decision of a device checked from several locations (a device's `check_locations`
// and `quorum`): from what each location last found, and whether it can still be heard, to the
// device's status, its events and whether the other locations must look again at once. Pure: its
// caller must run it in the transaction that writes one location's result, with the device row
// locked, so that two locations' results never decide on the same state.

export type { LocationVerdict };

/** What the device holds about one of its locations. */
export interface LocationState {
  name: string;
  /** Whether the location has a live worker (a heartbeat younger than 30 s). */
  live: boolean;
  /** The lease of the location's check in flight; a result under another is fenced. */
  leaseToken: string | null;
  /** The last result written for this location. */
  last: { ok: boolean; checkedAtMs: number } | null;
  /** When its current run of failures began; null while it passes. */
  failingSinceMs: number | null;
  /** Its failed checks in a row; 0 while it passes. */
  failures: number;
  /** Whether this failing episode was announced with `device.location_failing`. */
  announced: boolean;
}

export interface QuorumDevice {
  status: DeviceStatus;
  /** When the device became `validating`; null in any other status. */
  validatingSinceMs: number | null;
  /**
   * When its current run of `up` began: its `status_since` while `up`; while `validating`, when
   * the `up` it is confirming a failure of began (null when it was not `up` before); null otherwise.
   */
  upSinceMs: number | null;
  quorum: number;
  intervalS: number;
  locations: readonly LocationState[];
}

export interface QuorumSettings {
  retryDelayS: number;
  probeTimeoutMs: number;
  /** The re-check rule: failed checks in a row before a location counts as failing toward the quorum. */
  failuresBeforeDown: number;
}

/** One location's finished check, as its worker hands it over. */
export interface LocationResult {
  location: string;
  leaseToken: string;
  ok: boolean;
  /**
   * The check failed on the worker's side (engine/our-failures.ts), not the target's: it says
   * nothing about the target, so the location keeps its last result and sits this decision out.
   */
  ours: boolean;
  checkedAtMs: number;
}

export interface QuorumDecision {
  status: DeviceStatus;
  /** `insufficient` when fewer locations than the quorum can be heard: the status then holds. */
  quorumState: 'met' | 'insufficient';
  verdicts: Record<string, LocationVerdict>;
  /** `device.down` or `device.up` when the status change is announced. */
  event: 'device.down' | 'device.up' | null;
  /** Locations to announce with `device.location_failing`, each once per episode. */
  locationFailing: string[];
  /** The other locations are due at once: a second opinion now, not at their next interval. */
  secondOpinion: boolean;
  /** The locations as the decision leaves them, to be written with it. */
  locations: LocationState[];
  /**
   * When the device's run of `up` began, as the decision leaves it: an `up` device's
   * `status_since` (kept through a silent `validating`), or the `up` a `validating` one may come
   * back to; null in every other status.
   */
  upSinceMs: number | null;
}

/** How old a location's last result may be and still count: two intervals, or a retry and a probe. */
export function freshnessMs(intervalS: number, settings: QuorumSettings): number {
  return Math.max(2 * intervalS * 1000, settings.retryDelayS * 1000 + settings.probeTimeoutMs);
}

/**
 * Whether a location's failure counts toward the quorum: it failed `failuresBeforeDown` checks in
 * a row (at least 1), the first and the last at least that many re-checks apart (each a retry
 * delay, never longer than the interval), as a device of one location needs before `down`.
 */
function confirmedFailing(location: LocationState, recheckMs: number, failuresBeforeDown: number): boolean {
  if (location.last === null || location.last.ok || location.failingSinceMs === null) return false;
  const needed = Math.max(1, failuresBeforeDown);
  return location.failures >= needed && location.last.checkedAtMs - location.failingSinceMs >= (needed - 1) * recheckMs;
}

/**
 * Applies one location's result and decides. Null when the result is fenced: its lease is not the
 * location's (a worker that lost it, to a stop, a later claim or a disable), or the location is
 * not one of the device's; nothing of it is then written.
 */
export function decideQuorum(
  device: QuorumDevice,
  result: LocationResult,
  settings: QuorumSettings,
): QuorumDecision | null {
  const current = device.locations.find((l) => l.name === result.location);
  if (current === undefined || current.leaseToken !== result.leaseToken) return null;
  const now = result.checkedAtMs;
  // In a maintenance window no failing episode begins: each starts afresh once the window ends.
  const passes = result.ok || device.status === 'maintenance';
  const locations = device.locations.map((l): LocationState => {
    if (l !== current) return { ...l };
    // Our own failure says nothing about the target: the location keeps its last real result.
    if (result.ours) return { ...l, leaseToken: null };
    return {
      ...l,
      leaseToken: null,
      last: { ok: result.ok, checkedAtMs: now },
      failingSinceMs: passes ? null : (l.failingSinceMs ?? now),
      failures: passes ? 0 : l.failures + 1,
      announced: passes ? false : l.announced,
    };
  });
  const fresh = freshnessMs(device.intervalS, settings);
  const intervalMs = device.intervalS * 1000;
  const recheckMs = Math.min(settings.retryDelayS * 1000, intervalMs);
  const eligible = (l: LocationState) => l.live && l.last !== null && now - l.last.checkedAtMs < fresh;
  const verdicts: Record<string, LocationVerdict> = {};
  for (const l of locations) {
    verdicts[l.name] = eligible(l) ? (l.last!.ok ? 'up' : 'failing') : l.live && l.last === null ? 'unknown' : 'stale';
  }
  const heard = locations.filter(eligible);
  const failing = heard.filter((l) => !l.last!.ok).length;
  const confirmed = heard.filter((l) => confirmedFailing(l, recheckMs, settings.failuresBeforeDown)).length;
  const passing = heard.length - failing;
  const q = device.quorum;
  const decision = (
    status: DeviceStatus,
    event: QuorumDecision['event'] = null,
    secondOpinion = false,
  ): QuorumDecision => {
    if (status === 'down') for (const l of locations) l.announced = false;
    // A silent `validating` → `up` keeps the `up` it came from; any other way into `up` starts one.
    const upSinceMs =
      status === 'up'
        ? device.status === 'up' || device.status === 'validating'
          ? (device.upSinceMs ?? now)
          : now
        : status === 'validating' && (device.status === 'up' || device.status === 'validating')
          ? device.upSinceMs
          : null;
    const locationFailing: string[] = [];
    if (status === 'up' && !result.ours) {
      // A location failing below the quorum for a whole interval while the device is up: shown by
      // its own checks, the latest an interval after the later of its first failure and the
      // start of the device's `up` (failures from before a recovery are not "while the others pass").
      for (const l of heard) {
        if (l.last!.ok || l.announced || l.failingSinceMs === null) continue;
        if (l.last!.checkedAtMs - Math.max(l.failingSinceMs, upSinceMs!) >= intervalMs) {
          l.announced = true;
          locationFailing.push(l.name);
        }
      }
    }
    return {
      status,
      quorumState: heard.length < q ? 'insufficient' : 'met',
      verdicts,
      event,
      locationFailing,
      secondOpinion,
      locations,
      upSinceMs,
    };
  };

  // Fewer vantage points than the quorum: nothing is declared either way. A check that failed on
  // the worker's side holds the status too, and announces nothing, as for a device of one location.
  if (heard.length < q || result.ours) return decision(device.status);
  switch (device.status) {
    case 'pending':
    case 'up':
      // Confirmed failures at a quorum (with failuresBeforeDown 1, a first failure confirms itself).
      if (confirmed >= q) return decision('down', 'device.down');
      // A location that starts failing asks the others at once; one already failing below the
      // quorum (its episode under way) does not, or it would ask them at every interval.
      if (!result.ok && current.failingSinceMs === null) return decision('validating', null, true);
      if (failing >= q) return decision('validating', null, true);
      if (device.status === 'pending') return decision(failing === 0 ? 'up' : 'validating', null, failing > 0);
      return decision('up');
    case 'validating': {
      // Down only on failures each confirmed by its location's re-check (the re-check rule first,
      // then the quorum): a blip shorter than the retry delay fails each location once, no more.
      if (confirmed >= q) return decision('down', 'device.down');
      // Failures enough for a quorum, not all confirmed yet: their re-checks are due.
      if (failing >= q) return decision('validating');
      const since = device.validatingSinceMs ?? now;
      const allAnswered = heard.every((l) => l.last!.checkedAtMs >= since);
      return decision(allAnswered ? 'up' : 'validating');
    }
    case 'down':
      return decision(passing >= q ? 'up' : 'down', passing >= q ? 'device.up' : null);
    case 'paused':
      return decision('paused');
    // A maintenance window holds the status, and nothing is announced, until it ends.
    case 'maintenance':
      return decision('maintenance');
  }
}
