import {
  toTimestamp,
  type Device,
  type DeviceCheckOutcome,
  type DeviceLastResults,
  type DeviceStatus,
  type NewDeviceProbeResult,
} from '../../core/internal.ts';
import { isOurFailure } from '../our-failures.ts';
import { deviceEvents } from './device-events.ts';

export interface DeviceStatusOptions {
  /** Seconds before a failed check on a device not yet `down` is re-checked. */
  retryDelayS: number;
  /** Failed checks in a row that make a device `down`; below 1 counts as 1. */
  failuresBeforeDown: number;
  /** A valid certificate ending within this many days raises `device.tls_expiring`. */
  tlsWarnDays: number;
}

export interface DeviceCheckInput {
  /** The device as claimed. */
  device: Device;
  /** Failed checks in a row before this one, as the claim said. */
  consecutiveFailures: number;
  /** One result per probe that ran. */
  results: NewDeviceProbeResult[];
  /** When the check ended, in milliseconds since the epoch. */
  checkedAt: number;
}

/** The share of the interval a next check may move either way, so devices created together spread out. */
const JITTER = 0.1;

function statusAfter(
  device: Device,
  failures: number,
  results: readonly NewDeviceProbeResult[],
  failuresBeforeDown: number,
): DeviceStatus {
  if (results.length === 0) return device.status === 'paused' ? 'pending' : device.status;
  if (results.every((result) => result.ok)) return 'up';
  if (device.status === 'down' || failures >= Math.max(1, failuresBeforeDown)) return 'down';
  return 'validating';
}

function failuresAfter(device: Device, consecutiveFailures: number, results: readonly NewDeviceProbeResult[]): number {
  if (results.length === 0) return consecutiveFailures;
  if (results.every((result) => result.ok)) return 0;
  // A device never checked (or checked again after a pause) starts its count afresh.
  const fresh = device.status === 'pending' || device.status === 'paused';
  return (fresh ? 0 : consecutiveFailures) + 1;
}

/**
 * When the next check is due: after `retryDelayS` while a failure is being confirmed (never later
 * than the interval would be), else after the device's interval, moved by up to ±10 % at random.
 * A `down` device keeps its interval: its recovery is announced within one interval, and an
 * outage of many devices does not multiply the checks.
 */
function nextCheckAt(
  device: Device,
  status: DeviceStatus,
  checkedAt: number,
  retryDelayS: number,
  random: () => number,
): number {
  const intervalMs = device.check_interval_s * 1000;
  if (status === 'validating') return checkedAt + Math.min(retryDelayS * 1000, intervalMs);
  return checkedAt + Math.round(intervalMs * (1 + (2 * random() - 1) * JITTER));
}

/**
 * The pure transition of a check (docs/engine.md, "Statuses and transitions"): from the device as
 * claimed and the results of its probes to the outcome the store writes. `random` (in [0, 1))
 * draws the jitter; tests pin it.
 */
export function deviceCheckOutcome(
  input: DeviceCheckInput,
  options: DeviceStatusOptions,
  random: () => number = Math.random,
): DeviceCheckOutcome {
  if (input.device.status === 'maintenance') return maintenanceOutcome(input, random);
  const { device, results } = input;
  // toTimestamp: the probes stamped the same millisecond a moment ago, and it caches the text.
  const checkedAt = toTimestamp(input.checkedAt);
  if (results.some((result) => isOurFailure(result.error))) {
    // The worker's failure, not the device's: it stays as it was, its count of failures too,
    // nothing is announced, and it is checked again after the retry delay.
    const intervalMs = device.check_interval_s * 1000;
    return {
      checked_at: checkedAt,
      previous_status: device.status,
      status: device.status,
      consecutive_failures: input.consecutiveFailures,
      results,
      next_check_at: new Date(input.checkedAt + Math.min(options.retryDelayS * 1000, intervalMs)).toISOString(),
      events: [],
    };
  }
  const consecutiveFailures = failuresAfter(device, input.consecutiveFailures, results);
  const status = statusAfter(device, consecutiveFailures, results, options.failuresBeforeDown);
  // The device as the check leaves it, built only for an event to carry: copying every device at
  // every check was a visible share of a loopback probe's CPU (docs/performance.md, "The engine").
  const after = (): Device => {
    const lastResults: DeviceLastResults = { ...device.last_results };
    // Each result under its probe's name (the type pairs each name with its own result shape).
    for (const result of results) (lastResults as Record<string, NewDeviceProbeResult>)[result.probe] = result;
    return {
      ...device,
      status,
      status_since: status === device.status ? device.status_since : checkedAt,
      last_checked_at: checkedAt,
      last_results: lastResults,
    };
  };
  return {
    checked_at: checkedAt,
    previous_status: device.status,
    status,
    consecutive_failures: consecutiveFailures,
    results,
    next_check_at: new Date(nextCheckAt(device, status, input.checkedAt, options.retryDelayS, random)).toISOString(),
    events: deviceEvents({ before: device, status, after, results, checkedAt, tlsWarnDays: options.tlsWarnDays }),
  };
}

/**
 * A check of a device in maintenance (docs/engine.md, "Maintenance windows"): its results are
 * kept, marked `maintenance`, and it stays in maintenance, unannounced, until its window ends
 * (the engine's maintenance sync then makes it pending and due at once).
 */
function maintenanceOutcome(input: DeviceCheckInput, random: () => number): DeviceCheckOutcome {
  const { device } = input;
  const checkedAt = toTimestamp(input.checkedAt);
  const results = input.results.map((result) => ({ ...result, maintenance: true as const }));
  const intervalMs = device.check_interval_s * 1000;
  return {
    checked_at: checkedAt,
    previous_status: 'maintenance',
    status: 'maintenance',
    consecutive_failures: 0,
    results,
    next_check_at: new Date(input.checkedAt + Math.round(intervalMs * (1 + (2 * random() - 1) * JITTER))).toISOString(),
    events: [],
  };
}
