import { setMaxListeners } from 'node:events';
import type {
  BlacklistCheckOutcome,
  ClaimedBlacklistMonitor,
  ClaimedDevice,
  ClaimedLocationCheck,
  DeviceCheckOutcome,
  LocationCheckOutcome,
  MonitoringStore,
} from '../core/index.ts';
import { checkBlacklistMonitor, type DnsblCheckContext } from './dnsbl/check-blacklist.ts';
import type { Connector } from './net/connector.ts';
import type { ResolvedEngineOptions } from './options.ts';
import type { DeviceCheck } from './devices/check-device.ts';
import type { PolicyRefusals } from './devices/policy-refusals.ts';
import { REFUSED_BY_POLICY } from './our-failures.ts';
import type { CheckKind } from './scheduler/kind-runner.ts';
import { checkFromLocation, locationDecider } from './devices/location-check.ts';

/** Blacklist monitors: claimed, checked against the DNSBL zones, recorded in batches. */
export function blacklistKind(
  resolved: ResolvedEngineOptions,
  dnsbl: DnsblCheckContext,
): CheckKind<ClaimedBlacklistMonitor, BlacklistCheckOutcome> {
  return {
    name: 'blacklist_monitor',
    claim: (request) => resolved.store.claimDueBlacklistMonitors(request),
    check: (claimed) => checkBlacklistMonitor(claimed, dnsbl),
    record: (checks) => resolved.store.recordBlacklistChecks(checks),
  };
}

/** Devices: checked by the given device check through the guarded connector. */
export function deviceKind(
  resolved: ResolvedEngineOptions,
  deviceCheck: DeviceCheck,
  connector: Connector,
  refusals: PolicyRefusals,
): CheckKind<ClaimedDevice, DeviceCheckOutcome> {
  const options = {
    probeTimeoutMs: resolved.probeTimeoutMs,
    connectTimeoutMs: resolved.connectTimeoutMs,
    retryDelayS: resolved.retryDelayS,
    failuresBeforeDown: resolved.failuresBeforeDown,
    tlsWarnDays: resolved.tlsWarnDays,
    ...(resolved.trustedCa.length > 0 ? { ca: resolved.trustedCa } : {}),
  };
  // A check still running when its lease runs out could not be written: it is stopped a little
  // before, at 90 % of the lease counted from the claim (a claimed check may wait for a slot).
  const marginMs = resolved.leaseMs - Math.max(1, Math.floor(resolved.leaseMs * 0.9));
  // Checks whose stop falls within the same millisecond (the checks of one claim, started as
  // slots free) share one such signal: a timeout signal per check cost a timer, a weak reference
  // and its finalization each (docs/performance.md, "The engine"). The stop is worked out afresh
  // for each check, from the engine's clock, so a clock that jumps (a test's) is followed too.
  let shared: AbortSignal | undefined;
  let sharedStop = Number.NaN;
  const signal = (leaseUntilMs: number): AbortSignal => {
    const timeoutMs = Math.max(1, leaseUntilMs - marginMs - resolved.clock.now());
    const stop = performance.now() + timeoutMs;
    if (shared === undefined || Math.abs(stop - sharedStop) > 1) {
      shared = AbortSignal.timeout(timeoutMs);
      sharedStop = stop;
      // Every probe of those checks listens to it, and each removes its listener when it ends.
      setMaxListeners(0, shared);
    }
    return shared;
  };
  return {
    name: 'device',
    claim: (request) => resolved.store.claimDueDevices(request),
    check: async (claimed, leaseUntilMs) => {
      const context = {
        connector,
        clock: resolved.clock,
        options,
        signal: signal(leaseUntilMs),
        random: resolved.random,
      };
      const outcome = await deviceCheck(claimed, context);
      for (const result of outcome.results) {
        if (result.error === REFUSED_BY_POLICY) {
          refusals.refused(claimed.record.id);
          break;
        }
      }
      return outcome;
    },
    record: (checks) => resolved.store.recordDeviceChecks(checks),
  };
}

/** A store that keeps a schedule per (device, location): what checking from several locations needs. */
type LocationStore = Required<Pick<MonitoringStore, 'claimDueLocationChecks' | 'recordLocationCheck'>>;

export function hasLocationChecks(store: MonitoringStore): store is MonitoringStore & LocationStore {
  return store.claimDueLocationChecks !== undefined && store.recordLocationCheck !== undefined;
}

/**
 * Devices with `check_locations`: the pairs of this worker's location, each checked by its probes
 * and written one at a time with the quorum decision (location-check.ts).
 */
export function locationKind(
  resolved: ResolvedEngineOptions,
  store: LocationStore,
  connector: Connector,
  refusals: PolicyRefusals,
): CheckKind<ClaimedLocationCheck, LocationCheckOutcome> {
  const marginMs = resolved.leaseMs - Math.max(1, Math.floor(resolved.leaseMs * 0.9));
  const settings = {
    retryDelayS: resolved.retryDelayS,
    probeTimeoutMs: resolved.probeTimeoutMs,
    failuresBeforeDown: resolved.failuresBeforeDown,
    random: resolved.random ?? Math.random,
    tlsWarnDays: resolved.tlsWarnDays,
  };
  return {
    name: 'device location',
    claim: (request) => store.claimDueLocationChecks({ ...request, location: resolved.location }),
    check: async (claimed, leaseUntilMs) => {
      const outcome = await checkFromLocation(
        claimed,
        {
          connector,
          clock: resolved.clock,
          connectTimeoutMs: resolved.connectTimeoutMs,
          probeTimeoutMs: resolved.probeTimeoutMs,
          signal: AbortSignal.timeout(Math.max(1, leaseUntilMs - marginMs - resolved.clock.now())),
          ...(resolved.trustedCa.length > 0 ? { ca: resolved.trustedCa } : {}),
        },
        resolved.clock,
      );
      // A refusal is logged as for a device of one location: the worker's policy differs from the API's.
      if (outcome.results.some((result) => result.error === REFUSED_BY_POLICY)) refusals.refused(claimed.record.id);
      return outcome;
    },
    // One transaction per check: each locks its device for its decision.
    record: async (checks) => {
      const written: boolean[] = [];
      for (const check of checks) {
        written.push(await store.recordLocationCheck(check, locationDecider(check.lease, check.outcome, settings)));
      }
      return written;
    },
  };
}
