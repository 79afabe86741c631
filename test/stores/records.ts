import assert from 'node:assert/strict';
import type {
  NewBlacklistMonitor,
  NewDevice,
  NewDnsblResult,
  NewDeviceProbeResult,
  Timestamp,
} from '../../core/records/index.ts';
import type { CreateResult } from '../../core/store/store.ts';
import { newDevice, newMonitor } from '../support/records.ts';

// Records the store suites create: every field set, with unusual values where a store might slip.

export const T0 = '2026-11-22T07:00:00.000Z';
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const ALL = { afterId: 0, limit: 1000 };

/** T0 plus some minutes. */
export function at(minutes: number): Timestamp {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}

/** A web device with every field set, several to values a store might mangle: disabled, so `paused`. */
export function webDevice(overrides: Partial<NewDevice> = {}): NewDevice {
  return newDevice({
    service_type: 'web',
    scheme: 'https',
    port: 443,
    host_header: 'www.example.com:8443',
    proxy_enabled: true,
    origin_host: 'origin.example.net',
    origin_scheme: 'http',
    origin_port: 8080,
    check_public_https: true,
    check_public_tls: true,
    check_origin_http: true,
    expect_status: 204,
    location: 'Frankfurt, rack 7 ✓ "quoted"',
    is_enabled: false,
    created_at: T0,
    check_interval_s: 300,
    status: 'paused',
    // The store keeps the ids as they are: whose channels they are is the API's to judge.
    name: 'Frankfurt shop ✓ "quoted"',
    channel_ids: [2, 5],
    ...overrides,
  });
}

/** An SSH service on an IPv6 address, enabled and never checked. */
export function sshDevice(overrides: Partial<NewDevice> = {}): NewDevice {
  return newDevice({ target_type: 'ip', target_value: '2001:4860:4860::8888', created_at: at(1), ...overrides });
}

/** A blacklist monitor of 8.8.8.8, enabled and never checked. */
export function ipMonitor(overrides: Partial<NewBlacklistMonitor> = {}): NewBlacklistMonitor {
  return newMonitor({ target_type: 'ip', target_value: '8.8.8.8', created_at: T0, ...overrides });
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
