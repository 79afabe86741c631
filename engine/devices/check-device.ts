import type { Clock } from '../../core/clock.ts';
import type { ClaimedDevice, DeviceCheckOutcome } from '../../core/monitoring-store.ts';
import type { Connector } from '../net/connector.ts';
import type { ProbeOptions } from '../probes/probe-options.ts';
import { probesOf, runProbe } from './device-probes.ts';
import { deviceCheckOutcome } from './device-status.ts';

export interface DeviceCheckOptions {
  /** The most one probe may take, connecting included. */
  probeTimeoutMs: number;
  /** The most one connection attempt may take. */
  connectTimeoutMs: number;
  /** Seconds before a failed check is confirmed by another. */
  retryDelayS: number;
  /** Failed checks in a row that make a device `down`. */
  failuresBeforeDown: number;
  /** Days before a certificate's end that `device.tls_expiring` is raised. */
  tlsWarnDays: number;
}

export interface DeviceCheckContext {
  connector: Connector;
  clock: Clock;
  options: DeviceCheckOptions;
  /** The engine stopping: probes end at once and the check rejects rather than record a false failure. */
  signal: AbortSignal;
}

/**
 * One check of a claimed device: every probe it has on, at once, then the status, schedule and
 * events they lead to, as the store is to write them. Probes never throw (a failure is a result);
 * the check rejects only when `signal` aborted it, for an interrupted check says nothing about
 * the device and must not be recorded as a failure.
 */
export async function checkDevice(claimed: ClaimedDevice, context: DeviceCheckContext): Promise<DeviceCheckOutcome> {
  const { connector, clock, options, signal } = context;
  const device = claimed.record;
  const probeOptions: ProbeOptions = {
    connector, clock, signal, connectTimeoutMs: options.connectTimeoutMs, probeTimeoutMs: options.probeTimeoutMs,
  };
  const results = await Promise.all(probesOf(device).map((probe) => runProbe(probe, device, probeOptions)));
  signal.throwIfAborted();
  return deviceCheckOutcome(
    { device, consecutiveFailures: claimed.consecutive_failures, results, checkedAt: clock.now() },
    { retryDelayS: options.retryDelayS, failuresBeforeDown: options.failuresBeforeDown, tlsWarnDays: options.tlsWarnDays },
  );
}
