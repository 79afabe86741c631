import { setMaxListeners } from 'node:events';
import type { BlacklistCheckOutcome, BlacklistMonitor, Claimed, ClaimedDevice, DeviceCheckOutcome } from '../core/index.ts';
import { checkBlacklistMonitor, type DnsblCheckContext } from './dnsbl/check-blacklist.ts';
import type { Connector } from './net/connector.ts';
import type { ResolvedEngineOptions } from './options.ts';
import type { DeviceCheck } from './scheduler/device-check.ts';
import type { CheckKind } from './scheduler/kind-runner.ts';

/** Blacklist monitors: claimed, checked against the DNSBL zones, recorded in batches. */
export function blacklistKind(o: ResolvedEngineOptions, dnsbl: DnsblCheckContext): CheckKind<Claimed<BlacklistMonitor>, BlacklistCheckOutcome> {
  return {
    name: 'blacklist_monitor',
    claim: (request) => o.store.claimDueBlacklistMonitors(request),
    check: (claimed) => checkBlacklistMonitor(claimed, dnsbl),
    record: (checks) => o.store.recordBlacklistChecks(checks),
  };
}

/** Devices: checked by the given device check through the guarded connector. */
export function deviceKind(o: ResolvedEngineOptions, deviceCheck: DeviceCheck, connector: Connector): CheckKind<ClaimedDevice, DeviceCheckOutcome> {
  const options = {
    probeTimeoutMs: o.probeTimeoutMs,
    connectTimeoutMs: o.connectTimeoutMs,
    retryDelayS: o.retryDelayS,
    failuresBeforeDown: o.failuresBeforeDown,
    tlsWarnDays: o.tlsWarnDays,
    ...(o.trustedCa.length > 0 ? { ca: o.trustedCa } : {}),
  };
  // A check still running when its lease runs out could not be written: it is stopped a little
  // before, at 90 % of the lease counted from the claim (a claimed check may wait for a slot).
  const marginMs = o.leaseMs - Math.max(1, Math.floor(o.leaseMs * 0.9));
  // Checks whose stop falls within the same millisecond (the checks of one claim, started as
  // slots free) share one such signal: a timeout signal per check cost a timer, a weak reference
  // and its finalization each (docs/performance.md, "The engine"). The stop is worked out afresh
  // for each check, from the engine's clock, so a clock that jumps (a test's) is followed too.
  let shared: AbortSignal | undefined;
  let sharedStop = Number.NaN;
  const signal = (leaseUntilMs: number): AbortSignal => {
    const timeoutMs = Math.max(1, leaseUntilMs - marginMs - o.clock.now());
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
    claim: (request) => o.store.claimDueDevices(request),
    check: (claimed, leaseUntilMs) => deviceCheck(claimed, { connector, clock: o.clock, options, signal: signal(leaseUntilMs), random: o.random }),
    record: (checks) => o.store.recordDeviceChecks(checks),
  };
}
