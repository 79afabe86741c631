import {
  toTimestamp,
  type ClaimedLocationCheck,
  type Device,
  type DeviceLocation,
  type LocationCheckOutcome,
  type LocationCheckWrite,
  type LocationDecider,
  type Lease,
  type NewMonitoringEvent,
  type StoredLocation,
  type Timestamp,
} from '../../core/internal.ts';
import { isOurFailure } from '../our-failures.ts';
import type { ProbeOptions } from '../probes/probe-options.ts';
import { ourPart } from './check-device.ts';
import { expiringCertificates } from './device-events.ts';
import { probesOf, runProbe } from './device-probes.ts';
import { decideQuorum, type QuorumSettings } from './location-quorum.ts';

// A device checked from several locations (docs/engine.md, "Locations"): each location's worker
// runs the device's probes, and the store writes the result with the quorum decision, which this
// file turns into the writes and events the store makes.

/** The share of the interval a next check may move either way, as for a device's own schedule. */
const JITTER = 0.1;

/**
 * Runs every probe of the claimed device from this worker's location. The worker's own part of a
 * failure is told apart as for a device of one location (check-device.ts): a target the policy
 * refuses is `refused_by_policy`, a check cut short as its lease runs out `worker_overloaded`.
 */
export async function checkFromLocation(
  claimed: ClaimedLocationCheck,
  options: ProbeOptions,
  clock: { now(): number },
): Promise<LocationCheckOutcome> {
  const device = claimed.record;
  const probed = await Promise.all(probesOf(device).map((probe) => runProbe(probe, device, options)));
  const results = probed.map((result) => ourPart(result, options.signal.aborted));
  return { location: claimed.location, checked_at: toTimestamp(clock.now()), results };
}

export interface LocationDecisionSettings extends QuorumSettings {
  /** Jitter source in [0, 1). */
  random: () => number;
  /** A valid certificate ending within this many days raises `device.tls_expiring`. */
  tlsWarnDays: number;
}

/**
 * The decider the store calls with the device locked: the quorum decision of one location's
 * result (location-quorum.ts), as the writes and events it leads to. Null when the result is
 * fenced (its lease is no longer the location's), so nothing is written.
 */
export function locationDecider(
  lease: Lease,
  outcome: LocationCheckOutcome,
  settings: LocationDecisionSettings,
): LocationDecider {
  return (device: Device, stored: readonly StoredLocation[], upSince: Timestamp | null): LocationCheckWrite | null => {
    const checkedAtMs = Date.parse(outcome.checked_at);
    const ok = outcome.results.every((result) => result.ok);
    const ours = outcome.results.some((result) => isOurFailure(result.error));
    const since = device.status_since === null ? null : Date.parse(device.status_since);
    const decision = decideQuorum(
      {
        status: device.status,
        validatingSinceMs: device.status === 'validating' ? since : null,
        upSinceMs:
          device.status === 'up'
            ? since
            : device.status === 'validating' && upSince !== null
              ? Date.parse(upSince)
              : null,
        quorum: device.quorum ?? Math.floor(stored.length / 2) + 1,
        intervalS: device.check_interval_s,
        locations: stored,
      },
      { location: outcome.location, leaseToken: lease.token, ok, ours, checkedAtMs },
      settings,
    );
    if (decision === null) return null;

    // Each location as its last real result shows it: a check that failed on the worker's side
    // changes nothing of it (its result rows and `last_results` say what happened).
    const recordLocations: Record<string, DeviceLocation> = {};
    for (const location of decision.locations) {
      const before = stored.find((l) => l.name === location.name)!;
      const real = location.name === outcome.location && !ours;
      recordLocations[location.name] = {
        status: decision.verdicts[location.name] ?? 'unknown',
        last_checked_at: location.last === null ? null : toTimestamp(location.last.checkedAtMs),
        response_ms: real ? slowest(outcome) : before.response_ms,
        error: real ? (outcome.results.find((r) => !r.ok)?.error ?? null) : before.error,
      };
    }
    const intervalMs = device.check_interval_s * 1000;
    // A failure being confirmed, or one on the worker's side, is checked again after the retry delay.
    const nextMs =
      ours || (decision.status === 'validating' && !ok)
        ? checkedAtMs + Math.min(settings.retryDelayS * 1000, intervalMs)
        : checkedAtMs + Math.round(intervalMs * (1 + (2 * settings.random() - 1) * JITTER));

    const lastResults = { ...device.last_results } as Record<string, unknown>;
    for (const result of outcome.results) lastResults[result.probe] = result;
    // A silent `validating` → `up` gives the device back the `status_since` of the `up` it left.
    const statusSince =
      decision.status === device.status
        ? device.status_since
        : decision.status === 'up' && decision.upSinceMs !== null
          ? toTimestamp(decision.upSinceMs)
          : outcome.checked_at;
    const after: Device = {
      ...device,
      status: decision.status,
      status_since: statusSince,
      last_checked_at: outcome.checked_at,
      last_results: lastResults as Device['last_results'],
      quorum_state: decision.quorumState,
      locations: recordLocations,
    };
    const events: NewMonitoringEvent[] = [];
    const announce = (type: NewMonitoringEvent['type']) =>
      events.push({
        type,
        created_at: outcome.checked_at,
        data: { ...after, previous_status: device.status, status: decision.status },
      });
    if (decision.event !== null) announce(decision.event);
    // A certificate as for a device of one location (device-events.ts), against `last_results` as
    // the store read it with the device locked: whichever location wrote last, so one certificate
    // seen from several locations is announced once. A check failing on the worker's side, or
    // made in a maintenance window, announces nothing, as for one location.
    if (!ours && device.status !== 'maintenance') {
      const expiring = expiringCertificates(
        outcome.results,
        device.last_results,
        outcome.checked_at,
        settings.tlsWarnDays,
      );
      for (let i = 0; i < expiring; i++) announce('device.tls_expiring');
    }
    if (decision.locationFailing.length > 0) announce('device.location_failing');

    return {
      status: decision.status,
      status_since: statusSince,
      up_since:
        decision.status === 'validating' && decision.upSinceMs !== null ? toTimestamp(decision.upSinceMs) : null,
      quorum_state: decision.quorumState,
      locations: decision.locations.map((l) => ({
        name: l.name,
        failingSinceMs: l.failingSinceMs,
        failures: l.failures,
        announced: l.announced,
      })),
      record_locations: recordLocations,
      next_check_at: toTimestamp(nextMs),
      second_opinion: decision.secondOpinion,
      last: ours
        ? null
        : { ok, response_ms: slowest(outcome), error: outcome.results.find((r) => !r.ok)?.error ?? null },
      // A check in a maintenance window is kept, marked, as for a device of one location.
      results:
        device.status === 'maintenance'
          ? outcome.results.map((result) => ({ ...result, maintenance: true as const }))
          : outcome.results,
      events,
    };
  };
}

/** The slowest probe of a check that connected, as the location's `response_ms`. */
function slowest(outcome: LocationCheckOutcome): number | null {
  let max: number | null = null;
  for (const result of outcome.results) {
    if (result.response_ms !== null) max = Math.max(max ?? 0, result.response_ms);
  }
  return max;
}
