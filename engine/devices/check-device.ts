import type { ClaimedDevice, Clock, DeviceCheckOutcome, NewDeviceProbeResult } from '../../core/index.ts';
import type { Connector } from '../net/connector.ts';
import type { ProbeOptions } from '../probes/probe-options.ts';
import { probesOf, runProbe } from './device-probes.ts';
import { REFUSED_BY_POLICY, WORKER_OVERLOADED } from '../our-failures.ts';
import { deviceCheckOutcome } from './device-status.ts';

/** The settings a device check reads (docs/engine.md, "Device probes" and "Statuses and transitions"). */
export interface DeviceCheckOptions {
  probeTimeoutMs: number;
  connectTimeoutMs: number;
  retryDelayS: number;
  failuresBeforeDown: number;
  tlsWarnDays: number;
  /** Certificates (PEM) the TLS probes trust besides Node's CA list. */
  ca?: readonly string[];
}

export interface DeviceCheckContext {
  /** The guarded connector: every probe's way out. */
  connector: Connector;
  clock: Clock;
  options: DeviceCheckOptions;
  /** Aborted when the check's lease is about to run out: its result could no longer be written. */
  signal: AbortSignal;
  /** The engine's source of jitter for the next check, in [0, 1); Math.random when absent. */
  random?: () => number;
}

/**
 * Checks one claimed device: runs its probes and says what the store should write, next check
 * and events included. The engine schedules, bounds and records; this decides.
 */
export type DeviceCheck = (claimed: ClaimedDevice, context: DeviceCheckContext) => Promise<DeviceCheckOutcome>;

/**
 * What a failed probe says once the worker's own part is told apart (docs/engine.md, "Our
 * failures are not the target's"): the target policy refusing the target is `refused_by_policy`,
 * and a probe cut short because the check's lease was running out (the worker was too busy to
 * get to it in time) is `worker_overloaded`.
 */
export function ourPart(result: NewDeviceProbeResult, aborted: boolean): NewDeviceProbeResult {
  if (result.ok) return result;
  if (result.error === 'forbidden_address') return { ...result, error: REFUSED_BY_POLICY };
  if (aborted) return { ...result, error: WORKER_OVERLOADED };
  return result;
}

/**
 * One check of a claimed device: every probe it has on, at once, then the status, schedule and
 * events they lead to, as the store is to write them. Probes never throw (a failure is a result).
 * A check that `signal` interrupted says nothing about the device: its failed probes are
 * `worker_overloaded`, which moves the device nowhere and brings it back after the retry delay.
 */
export async function checkDevice(claimed: ClaimedDevice, context: DeviceCheckContext): Promise<DeviceCheckOutcome> {
  const { connector, clock, options, signal, random } = context;
  const device = claimed.record;
  const probeOptions: ProbeOptions = {
    connector,
    clock,
    signal,
    connectTimeoutMs: options.connectTimeoutMs,
    probeTimeoutMs: options.probeTimeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  const probed = await Promise.all(probesOf(device).map((probe) => runProbe(probe, device, probeOptions)));
  const results = probed.map((result) => ourPart(result, signal.aborted));
  return deviceCheckOutcome(
    { device, consecutiveFailures: claimed.consecutive_failures, results, checkedAt: clock.now() },
    {
      retryDelayS: options.retryDelayS,
      failuresBeforeDown: options.failuresBeforeDown,
      tlsWarnDays: options.tlsWarnDays,
    },
    random,
  );
}
