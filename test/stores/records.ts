import assert from 'node:assert/strict';
import type {
  NewBlacklistMonitor,
  NewDevice,
  NewDnsblResult,
  NewDeviceProbeResult,
  Timestamp,
} from '../../core/records/index.ts';
import type { CreateResult } from '../../core/store/store.ts';

// Records the store suites create: every field set, with unusual values where a store might slip.

export const T0 = '2026-11-22T07:00:00.000Z';
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const ALL = { afterId: 0, limit: 1000 };

/** T0 plus some minutes. */
export function at(minutes: number): Timestamp {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}

/** The engine's state of a record as a create leaves it: never checked, `paused` when disabled. */
function uncheckedDevice(enabled: boolean) {
  return {
    check_interval_s: 60,
    check_locations: null,
    quorum: null,
    quorum_state: null,
    locations: null,
    status: enabled ? 'pending' : 'paused',
    status_since: null,
    last_checked_at: null,
    last_results: {},
  } as const;
}

export function webDevice(overrides: Partial<NewDevice> = {}): NewDevice {
  return {
    target_type: 'domain',
    target_value: 'example.com',
    service_type: 'web',
    scheme: 'https',
    port: 443,
    host_header: 'www.example.com:8443',
    proxy_enabled: true,
    origin_host: 'origin.example.net',
    origin_scheme: 'http',
    origin_port: 8080,
    check_public_http: false,
    check_public_https: true,
    check_public_tls: true,
    check_origin_http: true,
    check_origin_tls: false,
    expect_status: 204,
    location: 'Frankfurt, rack 7 ✓ "quoted"',
    is_enabled: false,
    created_at: T0,
    ...uncheckedDevice(false),
    check_interval_s: 300,
    check_locations: null,
    quorum: null,
    quorum_state: null,
    locations: null,
    // The store keeps the ids as they are: whose channels they are is the API's to judge.
    name: 'Frankfurt shop ✓ "quoted"',
    channel_ids: [2, 5],
    ...overrides,
  };
}

export function sshDevice(overrides: Partial<NewDevice> = {}): NewDevice {
  return {
    target_type: 'ip',
    target_value: '2001:4860:4860::8888',
    service_type: 'ssh',
    scheme: null,
    port: 22,
    host_header: null,
    proxy_enabled: false,
    origin_host: null,
    origin_scheme: null,
    origin_port: null,
    check_public_http: false,
    check_public_https: false,
    check_public_tls: false,
    check_origin_http: false,
    check_origin_tls: false,
    expect_status: null,
    location: null,
    is_enabled: true,
    created_at: at(1),
    ...uncheckedDevice(true),
    name: null,
    channel_ids: null,
    ...overrides,
  };
}

export function newMonitor(overrides: Partial<NewBlacklistMonitor> = {}): NewBlacklistMonitor {
  return {
    target_type: 'ip',
    target_value: '8.8.8.8',
    is_enabled: true,
    last_status: null,
    last_checked_at: null,
    listed_on: [],
    created_at: T0,
    check_interval_s: 3600,
    failed_zones: [],
    zones: null,
    count_policy_listings: false,
    listings: [],
    rdns: null,
    name: null,
    channel_ids: null,
    ...overrides,
  };
}

export function createdOf<T>(result: CreateResult<T>): T {
  assert.ok('created' in result, `expected a new record, got ${JSON.stringify(result)}`);
  return result.created;
}

export function httpsResult(checkedAt: Timestamp, overrides: Partial<NewDeviceProbeResult> = {}): NewDeviceProbeResult {
  return {
    checked_at: checkedAt,
    probe: 'public_https',
    ok: true,
    response_ms: 42,
    error: null,
    http_status: 301,
    location: 'https://www.example.com/ "moved" ✓',
    ...overrides,
  } as NewDeviceProbeResult;
}

export function tlsResult(checkedAt: Timestamp, ok = true): NewDeviceProbeResult {
  return {
    checked_at: checkedAt,
    probe: 'public_tls',
    ok,
    response_ms: 7,
    error: ok ? null : 'CERT_HAS_EXPIRED',
    tls_valid_to: '2027-01-01T00:00:00.000Z',
    tls_days_left: ok ? 40 : -3,
    tls_error: ok ? null : 'CERT_HAS_EXPIRED',
  };
}

export function serviceResult(checkedAt: Timestamp, ok: boolean): NewDeviceProbeResult {
  return ok
    ? { checked_at: checkedAt, probe: 'service', ok, response_ms: 3, error: null, banner: 'SSH-2.0-OpenSSH_9.6' }
    : { checked_at: checkedAt, probe: 'service', ok, response_ms: null, error: 'timeout', banner: null };
}

export function dnsblResult(checkedAt: Timestamp, zone: string, listed: boolean): NewDnsblResult {
  return {
    checked_at: checkedAt,
    probe: 'dnsbl',
    ok: true,
    response_ms: 5,
    error: null,
    zone,
    listed,
    answer: listed ? '127.0.0.2' : null,
    meaning: listed ? 'SBL' : null,
    policy: false,
    delist_url: listed ? 'https://check.spamhaus.org/' : null,
    since: listed ? checkedAt : null,
  };
}
