import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { ManualClock } from '../../core/clock.ts';
import { MemoryStore } from '../../core/memory/memory-store.ts';
import type { DeviceCheckOutcome } from '../../core/store/monitoring-store.ts';
import type { NewDevice } from '../../core/records/index.ts';
import { checkDevice, type DeviceCheckContext } from '../../engine/devices/check-device.ts';
import type { Connector } from '../../engine/net/connector.ts';
import { deviceCheckOutcome } from '../../engine/devices/device-status.ts';
import { probePublicTls } from '../../engine/probes/tls-probe.ts';
import { createTestProbeConnector, lookupAnswering } from '../support/probe-connector.ts';
import { probeDevice, probeHarness } from '../support/probe-devices.ts';
import {
  startHttpServer,
  startTcpServer,
  startTlsServer,
  TEST_CA,
  type LocalServer,
} from '../support/probe-servers.ts';

const servers: LocalServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

// Timeouts no test waits out, except where it sets its own.
const OPTIONS = {
  probeTimeoutMs: 30_000,
  connectTimeoutMs: 30_000,
  retryDelayS: 30,
  failuresBeforeDown: 2,
  tlsWarnDays: 14,
};

function context(clock: ManualClock, overrides: Partial<DeviceCheckContext> = {}): DeviceCheckContext {
  const connector = createTestProbeConnector({ lookup: lookupAnswering('127.0.0.1'), allowPrivateTargets: true });
  return { connector, clock, options: OPTIONS, signal: new AbortController().signal, ...overrides };
}

/**
 * The test connector, counting at each connect how many attempts are under way or connected
 * (their socket not destroyed yet) including it: what the probes have in flight together.
 */
function countingConnector(): { connector: Connector; mostInFlight(): number } {
  const inner = createTestProbeConnector({ lookup: lookupAnswering('127.0.0.1'), allowPrivateTargets: true });
  const attempts: { socket?: Socket; failed: boolean }[] = [];
  let most = 0;
  return {
    mostInFlight: () => most,
    connector: {
      resolve: (host) => inner.resolve(host),
      async connect(request) {
        const attempt: { socket?: Socket; failed: boolean } = { failed: false };
        attempts.push(attempt);
        most = Math.max(most, attempts.filter((a) => !a.failed && a.socket?.destroyed !== true).length);
        try {
          const connection = await inner.connect({
            ...request,
            onSocket: (socket) => {
              attempt.socket = socket;
              request.onSocket?.(socket);
            },
          });
          attempt.socket = connection.socket;
          return connection;
        } catch (error) {
          attempt.failed = true;
          throw error;
        }
      },
    },
  };
}

/**
 * A device in the core's memory store, checked as the engine would: claimed when due, checked,
 * recorded under its lease, and the clock moved to its next check.
 */
async function monitored(device: NewDevice, clock: ManualClock) {
  const store = new MemoryStore();
  const user = await store.createUser({ name: null, created_at: new Date(clock.now()).toISOString() });
  const created = await store.createDevice(user.id, device);
  assert.ok('created' in created);
  const ctx = context(clock);
  return async (): Promise<DeviceCheckOutcome> => {
    const now = new Date(clock.now()).toISOString();
    const claims = await store.claimDueDevices({
      owner: 'test',
      now,
      limit: 10,
      leaseUntil: new Date(clock.now() + 60_000).toISOString(),
    });
    assert.equal(claims.length, 1, 'the device is due');
    const [claim] = claims;
    assert.ok(claim !== undefined);
    const outcome = await checkDevice(claim, ctx);
    assert.deepEqual(await store.recordDeviceChecks([{ lease: claim.lease, outcome }]), [true]);
    clock.set(outcome.next_check_at);
    return outcome;
  };
}

describe('checkDevice', () => {
  it('walks a web device through up, validating, down and back, announcing only down and the recovery', async () => {
    let status = 200;
    const server = await startHttpServer((_req, res) => res.writeHead(status).end());
    servers.push(server);
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const { id: _id, ...fields } = probeDevice({ port: server.port, check_public_http: true, check_interval_s: 60 });
    const check = await monitored(fields, clock);

    const seen: [string, string, number, string[]][] = [];
    const step = async (answer: number) => {
      status = answer;
      const before = clock.now();
      const outcome = await check();
      seen.push([
        outcome.previous_status,
        outcome.status,
        (Date.parse(outcome.next_check_at) - before) / 1000,
        outcome.events.map((e) => e.type),
      ]);
      return outcome;
    };
    await step(200);
    await step(503);
    const down = await step(503);
    await step(503);
    const up = await step(200);
    await step(500);
    await step(200);

    const shape = seen.map(([from, to, next, events]) => [
      from,
      to,
      to === 'validating' ? next : next >= 54 && next <= 66,
      events,
    ]);
    assert.deepEqual(shape, [
      ['pending', 'up', true, []],
      ['up', 'validating', 30, []],
      ['validating', 'down', true, ['device.down']],
      ['down', 'down', true, []],
      ['down', 'up', true, ['device.up']],
      ['up', 'validating', 30, []],
      ['validating', 'up', true, []],
    ]);
    const downData = down.events[0]?.data;
    assert.ok(downData !== undefined && 'last_results' in downData);
    assert.equal(downData.last_results.public_http?.http_status, 503);
    assert.equal(up.events[0]?.data.previous_status, 'down');
    assert.deepEqual(
      down.results.map((r) => [r.probe, r.ok, r.error]),
      [['public_http', false, 'unexpected_status']],
    );
  });

  it("runs a service's probes at once: service and public_tls on a silent port cost one timeout", async () => {
    const server = await startTcpServer();
    servers.push(server);
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const device = probeDevice({
      service_type: 'smtps',
      scheme: null,
      port: server.port,
      check_public_tls: true,
      expect_status: null,
    });
    const { connector, mostInFlight } = countingConnector();
    const started = performance.now();
    const lease = { id: 1, token: 't', owner: 'o', expires_at: '2026-06-01T00:01:00.000Z' };
    const claim = { record: device, lease, due_at: '2026-06-01T00:00:00.000Z', consecutive_failures: 0 };
    const options = { ...OPTIONS, probeTimeoutMs: 300 };
    const outcome = await checkDevice(claim, context(clock, { connector, options }));
    const took = performance.now() - started;
    assert.deepEqual(
      outcome.results.map((r) => [r.probe, r.error]),
      [
        ['service', 'timeout'],
        ['public_tls', 'timeout'],
      ],
    );
    assert.equal(outcome.status, 'validating');
    // One after the other, the second would connect only once the first had timed out and
    // closed its socket.
    assert.equal(mostInFlight(), 2, 'both probes were connecting or connected at once');
    assert.ok(took >= 290, `took ${took} ms`);
  });

  it('cut short by the engine (its lease running out): worker_overloaded, the device unchanged, back after the retry delay', async () => {
    const server = await startTcpServer();
    servers.push(server);
    const controller = new AbortController();
    const clock = new ManualClock();
    const device = probeDevice({ port: server.port, check_public_http: true, status: 'up' });
    setTimeout(() => controller.abort(), 30);
    const outcome = await checkDevice(
      {
        record: device,
        lease: { id: 1, token: 't', owner: 'o', expires_at: '2026-06-01T00:01:00.000Z' },
        due_at: '2026-06-01T00:00:00.000Z',
        consecutive_failures: 2,
      },
      context(clock, { signal: controller.signal }),
    );
    assert.deepEqual(
      outcome.results.map((r) => [r.ok, r.error]),
      [[false, 'worker_overloaded']],
    );
    assert.deepEqual(
      [outcome.previous_status, outcome.status, outcome.consecutive_failures, outcome.events],
      ['up', 'up', 2, []],
    );
    const retryS = context(clock, { signal: controller.signal }).options.retryDelayS;
    assert.equal(Date.parse(outcome.next_check_at) - Date.parse(outcome.checked_at), retryS * 1000);
  });
});

describe('device.tls_expiring from a real handshake', () => {
  it('is raised when the certificate the TLS probe saw ends within tlsWarnDays, once', async () => {
    const server = await startTlsServer('valid');
    servers.push(server);
    const { options, clock } = probeHarness({ ca: [TEST_CA] });
    clock.set('2044-12-25T00:00:00.000Z'); // the fixture ends 2045-01-01
    const device = probeDevice({ scheme: 'https', port: server.port, check_public_tls: true, status: 'up' });
    const first = await probePublicTls(device, options);
    assert.deepEqual([first.ok, first.tls_days_left], [true, 7]);
    const outcome = deviceCheckOutcome(
      { device, consecutiveFailures: 0, results: [first], checkedAt: clock.now() },
      OPTIONS,
    );
    assert.deepEqual(
      outcome.events.map((e) => e.type),
      ['device.tls_expiring'],
    );

    clock.advance(60_000);
    const again = await probePublicTls(device, options);
    const later = deviceCheckOutcome(
      {
        device: { ...device, last_results: { public_tls: first } },
        consecutiveFailures: 0,
        results: [again],
        checkedAt: clock.now(),
      },
      OPTIONS,
    );
    assert.deepEqual(later.events, []);
  });
});
