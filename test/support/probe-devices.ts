import { ManualClock } from '../../core/clock.ts';
import type { Device } from '../../core/records/index.ts';
import type { ProbeOptions } from '../../engine/probes/probe-options.ts';
import { createTestProbeConnector, lookupAnswering, type TestProbeConnector } from './probe-connector.ts';

/** The name the probe tests' certificates carry; the test lookup answers it with 127.0.0.1. */
export const FIXTURE_NAME = 'www.probe-fixture.net';

/** A web device on `FIXTURE_NAME` as a create with defaults would leave it, with `overrides`. */
export function probeDevice(overrides: Partial<Device> = {}): Device {
  return {
    id: 1,
    target_type: 'domain',
    target_value: FIXTURE_NAME,
    service_type: 'web',
    scheme: 'http',
    port: 80,
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
    expect_status: 200,
    location: null,
    is_enabled: true,
    created_at: '2026-01-01T00:00:00.000Z',
    check_interval_s: 60,
    check_locations: null,
    quorum: null,
    quorum_state: null,
    locations: null,
    status: 'pending',
    status_since: null,
    last_checked_at: null,
    last_results: {},
    name: null,
    channel_ids: null,
    ...overrides,
  };
}

export interface ProbeHarness {
  options: ProbeOptions;
  connector: TestProbeConnector;
  clock: ManualClock;
}

/**
 * Probe options for a loopback target: every name resolves to 127.0.0.1 and private targets are
 * allowed (the one thing that lets a test reach its own servers). Generous timeouts, which no test
 * waits out: a test about a timeout sets its own.
 */
export function probeHarness(overrides: Partial<ProbeOptions> & { allowPrivateTargets?: boolean } = {}): ProbeHarness {
  const { allowPrivateTargets = true, ...rest } = overrides;
  const connector = createTestProbeConnector({ lookup: lookupAnswering('127.0.0.1'), allowPrivateTargets });
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const options: ProbeOptions = {
    connector,
    clock,
    connectTimeoutMs: 30_000,
    probeTimeoutMs: 30_000,
    signal: new AbortController().signal,
    ...rest,
  };
  return { options, connector, clock };
}
