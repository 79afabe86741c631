import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import type { Device, NewDeviceProbeResult } from '../../core/records/index.ts';
import { probePublicHttp, probePublicHttps } from '../../engine/probes/http-probe.ts';
import { ProbeFailure, type Connection, type Connector } from '../../engine/net/connector.ts';
import type { ProbeOptions } from '../../engine/probes/probe-options.ts';
import { probeService } from '../../engine/probes/service-probe.ts';
import { probePublicTls } from '../../engine/probes/tls-probe.ts';
import { probeDevice, probeHarness } from '../support/probe-devices.ts';
import { startTcpServer, TEST_CA } from '../support/probe-servers.ts';
import { HANG_GUARD_MS } from '../support/hang-guard.ts';

type Probe = (device: Device, options: ProbeOptions) => Promise<NewDeviceProbeResult>;

/** Every kind of probe, each on a device whose own flag and service point it at `port`. */
const probes: [string, Probe, (port: number) => Device][] = [
  ['public_http', probePublicHttp, (port) => probeDevice({ scheme: 'http', port })],
  ['public_https', probePublicHttps, (port) => probeDevice({ scheme: 'https', port })],
  ['public_tls', probePublicTls, (port) => probeDevice({ scheme: 'https', port })],
  [
    'service (ssh)',
    probeService,
    (port) => probeDevice({ service_type: 'ssh', scheme: null, port, expect_status: null }),
  ],
];

/** Accepts every connection and never says a word: the target that must cost one timeout. */
const silent = startTcpServer();
// Awaited here: with every test filtered out (--test-name-pattern) the hook runs before the
// server has started, and a list filled when it starts would still be empty, leaving it open.
after(async () => (await silent).close());

/** A port that refuses: a server's, once it has closed. */
const refusing = startTcpServer().then(async (server) => {
  await server.close();
  return server.port;
});

for (const [name, probe, device] of probes) {
  describe(`${name} failures`, () => {
    it('a silent target costs one probe timeout: error timeout, response_ms counted from the start', async () => {
      const server = await silent;
      // Only the probe's own deadline can end it: no other timeout is shorter than the test's
      // hang guard, so a probe that missed its deadline would fail the test by hanging.
      const { options } = probeHarness({ probeTimeoutMs: 150, connectTimeoutMs: HANG_GUARD_MS, ca: [TEST_CA] });
      const started = performance.now();
      const result = await probe(device(server.port), options);
      const took = performance.now() - started;
      assert.deepEqual([result.ok, result.error], [false, 'timeout']);
      assert.ok(result.response_ms !== null && result.response_ms >= 140, `response_ms ${result.response_ms}`);
      assert.ok(took >= 140, `took ${took} ms`);
    });

    it('a name resolving to loopback is refused when private targets are not allowed: forbidden_address', async () => {
      const server = await silent;
      const before = server.connections;
      const { options } = probeHarness({ allowPrivateTargets: false, ca: [TEST_CA] });
      const result = await probe(device(server.port), options);
      assert.deepEqual([result.ok, result.error, result.response_ms], [false, 'forbidden_address', null]);
      assert.equal(server.connections, before, 'nothing reached the server');
    });

    it('a refused connection says ECONNREFUSED', async () => {
      const { options } = probeHarness({ ca: [TEST_CA] });
      const result = await probe(device(await refusing), options);
      assert.deepEqual([result.ok, result.error, result.response_ms], [false, 'ECONNREFUSED', null]);
    });

    it("the engine's abort ends the probe at once with error aborted", async () => {
      const server = await silent;
      const controller = new AbortController();
      // No deadline of the probe's own could end it before the test's hang guard: only the abort.
      const { options } = probeHarness({
        probeTimeoutMs: HANG_GUARD_MS,
        connectTimeoutMs: HANG_GUARD_MS,
        signal: controller.signal,
        ca: [TEST_CA],
      });
      setTimeout(() => controller.abort(), 30);
      const result = await probe(device(server.port), options);
      assert.deepEqual([result.ok, result.error], [false, 'aborted']);
    });
  });
}

describe('connect timeout', () => {
  it("asks the connector for the connect timeout when it ends first; else the probe's own deadline ends the attempt", async () => {
    const server = await silent;
    const quick = probeHarness({ connectTimeoutMs: 50, probeTimeoutMs: 100 });
    await probePublicHttp(probeDevice({ port: server.port }), quick.options);
    assert.equal(quick.connector.requests[0]?.timeoutMs, 50);
    const short = probeHarness({ connectTimeoutMs: 5_000, probeTimeoutMs: 100 });
    await probePublicHttp(probeDevice({ port: server.port }), short.options);
    assert.equal(short.connector.requests[0]?.timeoutMs, undefined);
    assert.equal(
      typeof short.connector.requests[0]?.onSocket,
      'function',
      'the probe is handed the socket, to end the attempt',
    );
  });

  it(
    "a connection still being made when the probe's time is up is destroyed, " + 'and the probe says timeout',
    { timeout: HANG_GUARD_MS },
    async () => {
      // A connector whose connection never completes (as a target dropping SYNs): only the probe
      // can end it, by destroying the socket it was handed.
      const sockets: Socket[] = [];
      const hanging: Connector = {
        resolve: async () => ['127.0.0.1'],
        connect: (request) =>
          new Promise<Connection>((_, reject) => {
            const socket = new Socket();
            sockets.push(socket);
            request.onSocket?.(socket);
            socket.once('close', () => reject(new ProbeFailure('aborted')));
          }),
      };
      // Ended by the probe's deadline: the hanging connector never gives up of its own accord, and
      // the connect timeout is the test's hang guard.
      const { options } = probeHarness({ connectTimeoutMs: HANG_GUARD_MS, probeTimeoutMs: 80 });
      const device = probeDevice({ service_type: 'ssh', scheme: null, port: 22, expect_status: null });
      const result = await probeService(device, { ...options, connector: hanging });
      assert.deepEqual([result.ok, result.error], [false, 'timeout']);
      assert.equal(sockets.length, 1);
      assert.equal(sockets[0]!.destroyed, true);
    },
  );
});
