/**
 * Checks recorded the way the engine records them, through the store's public engine methods
 * (claim, then record under the claim's lease), with outcomes the test writes itself. For tests of
 * what the API shows once checks have run, without running probes.
 */
import assert from 'node:assert/strict';
import type {
  BlacklistCheckOutcome,
  DeviceCheckOutcome,
  DnsblListing,
  DeviceLastResults,
  DeviceStatus,
  HttpProbeResult,
  MonitoringStore,
  NewDeviceProbeResult,
  NewDnsblResult,
  ServiceProbeResult,
  Timestamp,
  TlsProbeResult,
} from '../../core/index.ts';

const OWNER = 'test-worker';

/**
 * A claim at `at` whose leases run out at once, so a record claimed here and not recorded is
 * claimable again by the next call: other tests sharing the store never find their records held.
 */
function claim(at: Timestamp) {
  return { owner: OWNER, now: at, limit: 100_000, leaseUntil: at };
}

export interface BlacklistCheck {
  checked_at: Timestamp;
  last_status: BlacklistCheckOutcome['last_status'];
  listed_on?: string[];
  failed_zones?: string[];
  results?: NewDnsblResult[];
  listings?: DnsblListing[];
  rdns?: string | null;
}

/**
 * Claims the monitor at `check.checked_at` and records the check; the next one is due at once.
 * False when the monitor was not due (or does not exist) or the store refused the write.
 */
export async function recordBlacklistCheck(
  store: MonitoringStore,
  id: number,
  check: BlacklistCheck,
): Promise<boolean> {
  const claimed = (await store.claimDueBlacklistMonitors(claim(check.checked_at))).find((c) => c.record.id === id);
  if (claimed === undefined) return false;
  const outcome: BlacklistCheckOutcome = {
    checked_at: check.checked_at,
    last_status: check.last_status,
    listed_on: check.listed_on ?? [],
    failed_zones: check.failed_zones ?? [],
    results: check.results ?? [],
    next_check_at: check.checked_at,
    events: [],
    listings: check.listings ?? [],
    rdns: check.rdns ?? null,
  };
  const [written] = await store.recordBlacklistChecks([{ lease: claimed.lease, outcome }]);
  return written === true;
}

export interface DeviceCheck {
  checked_at: Timestamp;
  status: DeviceStatus;
  results: NewDeviceProbeResult[];
  consecutive_failures?: number;
}

/** Claims the device at `check.checked_at` and records the check, as `recordBlacklistCheck` does. */
export async function recordDeviceCheck(store: MonitoringStore, id: number, check: DeviceCheck): Promise<boolean> {
  const claimed = (await store.claimDueDevices(claim(check.checked_at))).find((c) => c.record.id === id);
  if (claimed === undefined) return false;
  const outcome: DeviceCheckOutcome = {
    checked_at: check.checked_at,
    previous_status: claimed.record.status,
    status: check.status,
    consecutive_failures: check.consecutive_failures ?? 0,
    results: check.results,
    next_check_at: check.checked_at,
    events: [],
  };
  const [written] = await store.recordDeviceChecks([{ lease: claimed.lease, outcome }]);
  return written === true;
}

/** Like the helpers above, failing the test when the check was not written. */
export async function mustRecord(written: Promise<boolean>): Promise<void> {
  assert.equal(await written, true, 'the check was written');
}

// ---- results as the probes report them -----------------------------------------------------

/** The listing fields of a row: an SBL listing seen first at the check itself, or none. */
function listingFields(checkedAt: Timestamp, listed: boolean) {
  return listed
    ? { meaning: 'SBL: a spam source', policy: false, delist_url: 'https://check.spamhaus.org/', since: checkedAt }
    : { meaning: null, policy: false, delist_url: null, since: null };
}

export function dnsbl(
  checked_at: Timestamp,
  zone: string,
  listed: boolean,
  answer: string | null = listed ? '127.0.0.2' : null,
): NewDnsblResult {
  return {
    checked_at,
    probe: 'dnsbl',
    ok: true,
    response_ms: 12,
    error: null,
    zone,
    listed,
    answer,
    ...listingFields(checked_at, listed),
  };
}

export function dnsblFailure(checked_at: Timestamp, zone: string, error = 'timeout'): NewDnsblResult {
  return {
    checked_at,
    probe: 'dnsbl',
    ok: false,
    response_ms: null,
    error,
    zone,
    listed: false,
    answer: null,
    ...listingFields(checked_at, false),
  };
}

export function http(
  checked_at: Timestamp,
  status: number | null,
  probe: HttpProbeResult['probe'] = 'public_https',
): Omit<HttpProbeResult, 'id' | 'check_id' | 'check_location'> {
  const ok = status === 200;
  return {
    checked_at,
    probe,
    ok,
    response_ms: status === null ? null : 87,
    error: status === null ? 'ECONNREFUSED' : ok ? null : `status ${status}`,
    http_status: status,
    location: status !== null && status >= 300 && status < 400 ? 'https://www.example.com/' : null,
  };
}

export function tls(
  checked_at: Timestamp,
  daysLeft: number,
  probe: TlsProbeResult['probe'] = 'public_tls',
): Omit<TlsProbeResult, 'id' | 'check_id' | 'check_location'> {
  const validTo = new Date(new Date(checked_at).getTime() + daysLeft * 86_400_000).toISOString();
  return {
    checked_at,
    probe,
    ok: daysLeft >= 0,
    response_ms: 40,
    error: daysLeft >= 0 ? null : 'CERT_HAS_EXPIRED',
    tls_valid_to: validTo,
    tls_days_left: daysLeft,
    tls_error: daysLeft >= 0 ? null : 'CERT_HAS_EXPIRED',
  };
}

export function service(
  checked_at: Timestamp,
  banner: string | null,
): Omit<ServiceProbeResult, 'id' | 'check_id' | 'check_location'> {
  return {
    checked_at,
    probe: 'service',
    ok: banner !== null,
    response_ms: 5,
    error: banner === null ? 'timeout' : null,
    banner,
  };
}

/** A device's `last_results` holding these results, keyed by probe, built entry by entry as the stores merge them. */
export function lastResults(...results: NewDeviceProbeResult[]): DeviceLastResults {
  const last: DeviceLastResults = {};
  for (const result of results) Object.assign(last, { [result.probe]: result });
  return last;
}
