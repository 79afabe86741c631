import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { probeOriginTls, probePublicTls } from '../../engine/probes/tls-probe.ts';
import { FIXTURE_NAME, probeDevice, probeHarness } from '../support/probe-devices.ts';
import {
  startTcpServer,
  startTlsServer,
  TEST_CA,
  type FixtureCertificate,
  type LocalServer,
} from '../support/probe-servers.ts';

const servers = new Map<FixtureCertificate, LocalServer>();
const sni: string[] = [];
after(() => Promise.all([...servers.values()].map((s) => s.close())));

/** The SNI the servers heard since `mark`: undefined when the client sent none. */
function sniSince(mark: number): string | undefined {
  return sni[mark];
}

async function tlsServer(certificate: FixtureCertificate): Promise<LocalServer> {
  let server = servers.get(certificate);
  if (server === undefined) {
    server = await startTlsServer(certificate, (name) => sni.push(name));
    servers.set(certificate, server);
  }
  return server;
}

/** public_tls of an https web device on `FIXTURE_NAME`, trusting the test CA. */
async function publicTls(certificate: FixtureCertificate, overrides: Parameters<typeof probeDevice>[0] = {}) {
  const server = await tlsServer(certificate);
  const { options, clock } = probeHarness({ ca: [TEST_CA] });
  const mark = sni.length;
  const result = await probePublicTls(probeDevice({ scheme: 'https', port: server.port, ...overrides }), options);
  return { result, clock, sni: () => sniSince(mark) };
}

describe('public_tls', () => {
  it('is ok for a valid chain and name, with the expiry and the whole days left by the injected clock', async () => {
    const { result, clock, sni: seen } = await publicTls('valid');
    assert.deepEqual(
      { ...result, response_ms: typeof result.response_ms },
      {
        probe: 'public_tls',
        checked_at: new Date(clock.now()).toISOString(),
        ok: true,
        response_ms: 'number',
        error: null,
        tls_valid_to: '2045-01-01T00:00:00.000Z',
        tls_days_left: 6789,
        tls_error: null,
      },
    );
    assert.equal(seen(), FIXTURE_NAME);
  });

  it('says CERT_HAS_EXPIRED for an expired certificate, and still shows its dates', async () => {
    const { result } = await publicTls('expired');
    assert.deepEqual([result.ok, result.error, result.tls_error], [false, 'CERT_HAS_EXPIRED', 'CERT_HAS_EXPIRED']);
    assert.equal(result.tls_valid_to, '2021-01-01T00:00:00.000Z');
    assert.ok(result.tls_days_left !== null && result.tls_days_left < 0);
  });

  it('says ERR_TLS_CERT_ALTNAME_INVALID for a certificate of another name', async () => {
    const { result } = await publicTls('wrong-name');
    assert.deepEqual([result.ok, result.tls_error], [false, 'ERR_TLS_CERT_ALTNAME_INVALID']);
    assert.equal(result.tls_valid_to, '2045-01-01T00:00:00.000Z');
  });

  it('says DEPTH_ZERO_SELF_SIGNED_CERT for a self-signed certificate', async () => {
    const { result } = await publicTls('self-signed');
    assert.deepEqual([result.ok, result.tls_error], [false, 'DEPTH_ZERO_SELF_SIGNED_CERT']);
  });

  it("trusts only Node's CAs without the ca option: the test CA is unknown there", async () => {
    const server = await tlsServer('valid');
    const { options } = probeHarness();
    const result = await probePublicTls(probeDevice({ scheme: 'https', port: server.port }), options);
    assert.deepEqual([result.ok, result.tls_error], [false, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
  });

  it("checks host_header's name (without its port) rather than the target", async () => {
    const { result, sni: seen } = await publicTls('wrong-name', { host_header: 'other.probe-fixture.net:8443' });
    assert.deepEqual([result.ok, result.tls_error], [true, null]);
    assert.equal(seen(), 'other.probe-fixture.net');
  });

  it("verifies an IP target against the certificate's IP names, sending no SNI", async () => {
    const { result, sni: seen } = await publicTls('valid', { target_type: 'ip', target_value: '127.0.0.1' });
    assert.deepEqual([result.ok, result.tls_error], [true, null]);
    assert.equal(seen(), undefined);
  });

  it('fails without a certificate when the handshake itself fails', async () => {
    const server = await startTcpServer((socket) => socket.end('220 not tls\r\n'));
    const { options } = probeHarness({ ca: [TEST_CA] });
    const result = await probePublicTls(probeDevice({ scheme: 'https', port: server.port }), options);
    await server.close();
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /^(ERR_SSL_|ECONNRESET)/);
    assert.deepEqual([result.tls_valid_to, result.tls_days_left, result.tls_error], [null, null, null]);
  });
});

describe('origin_tls', () => {
  it('handshakes with the origin, checking the public name', async () => {
    const server = await tlsServer('valid');
    const { options, connector } = probeHarness({ ca: [TEST_CA] });
    const device = probeDevice({
      scheme: 'https',
      port: 443,
      origin_host: '127.0.0.1',
      origin_scheme: 'https',
      origin_port: server.port,
    });
    const mark = sni.length;
    const result = await probeOriginTls(device, options);
    assert.deepEqual([result.probe, result.ok, result.tls_valid_to], ['origin_tls', true, '2045-01-01T00:00:00.000Z']);
    assert.deepEqual(
      connector.requests.map((r) => `${r.host}:${r.port}`),
      [`127.0.0.1:${server.port}`],
    );
    assert.equal(sniSince(mark), FIXTURE_NAME);
  });

  it("fails when the origin's certificate is not the public name's", async () => {
    const server = await tlsServer('wrong-name');
    const { options } = probeHarness({ ca: [TEST_CA] });
    const device = probeDevice({
      scheme: 'https',
      origin_host: '127.0.0.1',
      origin_scheme: 'https',
      origin_port: server.port,
    });
    const result = await probeOriginTls(device, options);
    assert.deepEqual([result.ok, result.tls_error], [false, 'ERR_TLS_CERT_ALTNAME_INVALID']);
  });
});
