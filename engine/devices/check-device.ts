import type { ClaimedDevice, DeviceCheckOutcome } from '../../core/index.ts';
import type { DeviceCheckContext, DeviceCheckOptions } from '../scheduler/device-check.ts';

export type { DeviceCheckContext, DeviceCheckOptions };
import type { ProbeOptions } from '../probes/probe-options.ts';
import { probesOf, runProbe } from './device-probes.ts';
import { deviceCheckOutcome } from './device-status.ts';

/**
 * One check of a claimed device: every probe it has on, at once, then the status, schedule and
 * events they lead to, as the store is to write them. Probes never throw (a failure is a result);
 * the check rejects only when `signal` aborted it, for an interrupted check says nothing about
 * the device and must not be recorded as a failure.
 */
export async function checkDevice(claimed: ClaimedDevice, context: DeviceCheckContext): Promise<DeviceCheckOutcome> {
  const { connector, clock, options, signal, random } = context;
  const device = claimed.record;
  const probeOptions: ProbeOptions = {
    connector, clock, signal, connectTimeoutMs: options.connectTimeoutMs, probeTimeoutMs: options.probeTimeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  const results = await Promise.all(probesOf(device).map((probe) => runProbe(probe, device, probeOptions)));
  signal.throwIfAborted();
  return deviceCheckOutcome(
    { device, consecutiveFailures: claimed.consecutive_failures, results, checkedAt: clock.now() },
    { retryDelayS: options.retryDelayS, failuresBeforeDown: options.failuresBeforeDown, tlsWarnDays: options.tlsWarnDays },
    random,
  );
}
