import { ManualClock } from '../../core/clock.ts';
import type { Device } from '../../core/records/index.ts';
import type { ProbeOptions } from '../../engine/probes/probe-options.ts';
import { newDevice } from './records.ts';
import { createTestProbeConnector, lookupAnswering, type TestProbeConnector } from './probe-connector.ts';

/** The name the probe tests' certificates carry; the test lookup answers it with 127.0.0.1. */
export const FIXTURE_NAME = 'www.probe-fixture.net';

/** A web device on `FIXTURE_NAME`, plain HTTP on port 80 and no probe flag on, with `overrides`. */
export function probeDevice(overrides: Partial<Device> = {}): Device {
  return {
    id: 1,
    ...newDevice({ target_value: FIXTURE_NAME, service_type: 'web', scheme: 'http', port: 80, expect_status: 200 }),
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
