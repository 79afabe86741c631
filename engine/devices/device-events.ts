import type {
  Device,
  DeviceLastResults,
  DeviceStatus,
  NewDeviceProbeResult,
  NewMonitoringEvent,
  Timestamp,
} from '../../core/index.ts';

const DAY_MS = 86_400_000;

type TlsResult = Extract<NewDeviceProbeResult, { probe: 'public_tls' | 'origin_tls' }>;

export interface DeviceEventsInput {
  /** The device as claimed, before this check. */
  before: Device;
  /** Its status after this check. */
  status: DeviceStatus;
  /**
   * The device as this check leaves it: asked for only when there is an event to carry it, as
   * nearly every check announces nothing (docs/performance.md, "The engine").
   */
  after(): Device;
  results: readonly NewDeviceProbeResult[];
  checkedAt: Timestamp;
  tlsWarnDays: number;
}

/** A valid certificate that ends within the warning window, as of `at`; expired ones are a failure, not a warning. */
function expiresSoon(result: TlsResult, at: Timestamp, tlsWarnDays: number): boolean {
  if (!result.ok || result.tls_valid_to === null) return false;
  const left = Date.parse(result.tls_valid_to) - Date.parse(at);
  return left > 0 && left <= tlsWarnDays * DAY_MS;
}

/**
 * Whether this certificate was already announced: the probe's previous result showed the same
 * end of validity, valid and already inside the window, so that check raised (or inherited) the
 * event. A renewed certificate has another end of validity and is announced afresh.
 */
function alreadyAnnounced(result: TlsResult, previous: DeviceLastResults, tlsWarnDays: number): boolean {
  const last: TlsResult | undefined = result.probe === 'public_tls' ? previous.public_tls : previous.origin_tls;
  if (last === undefined || last.tls_valid_to !== result.tls_valid_to) return false;
  return expiresSoon(last, last.checked_at, tlsWarnDays);
}

/**
 * How many `device.tls_expiring` a check raises: one per TLS probe (`public_tls`, `origin_tls`)
 * whose valid certificate ends within the window and was not already announced. `previous` is the
 * device's `last_results` as the check found it: for a device checked from several locations, as
 * the store read it with the device locked, so it holds the result another location wrote just
 * before, and two locations seeing one certificate announce it once.
 */
export function expiringCertificates(
  results: readonly NewDeviceProbeResult[],
  previous: DeviceLastResults,
  checkedAt: Timestamp,
  tlsWarnDays: number,
): number {
  let count = 0;
  for (const result of results) {
    if (result.probe !== 'public_tls' && result.probe !== 'origin_tls') continue;
    if (expiresSoon(result, checkedAt, tlsWarnDays) && !alreadyAnnounced(result, previous, tlsWarnDays)) count++;
  }
  return count;
}

/**
 * The events a check raises (docs/engine.md, "Events and webhooks"): `device.down` on entering
 * `down`, `device.up` on leaving it for `up` (a recovery from `validating` was never announced as
 * an outage, so it is no news), and `device.tls_expiring` once per certificate. Each carries the
 * device as the check leaves it, with the status before and after.
 */
export function deviceEvents(input: DeviceEventsInput): NewMonitoringEvent[] {
  const { before, status, checkedAt } = input;
  const previous: DeviceStatus = before.status;
  const types: NewMonitoringEvent['type'][] = [];
  if (status === 'down' && previous !== 'down') types.push('device.down');
  if (status === 'up' && previous === 'down') types.push('device.up');
  const expiring = expiringCertificates(input.results, before.last_results, checkedAt, input.tlsWarnDays);
  for (let i = 0; i < expiring; i++) types.push('device.tls_expiring');
  if (types.length === 0) return [];
  const data = { ...input.after(), previous_status: previous, status };
  return types.map((type) => ({ type, created_at: checkedAt, data }));
}
