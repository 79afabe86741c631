import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { after, describe, it } from 'node:test';
import { probeOriginHttp, probePublicHttp, probePublicHttps } from '../../engine/probes/http-probe.ts';
import { FIXTURE_NAME, probeDevice, probeHarness } from '../support/probe-devices.ts';
import { startHttpServer, startHttpsServer, startTcpServer, type LocalServer } from '../support/probe-servers.ts';
import { waitFor } from '../support/wait-for.ts';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  servername: string | false | null | undefined;
}

const servers: LocalServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

/** An HTTP(S) server answering `status` (and `location`), remembering what it was asked. */
async function webServer(
  tls: boolean,
  status: number,
  location?: string,
): Promise<{ server: LocalServer; seen: Seen[] }> {
  const seen: Seen[] = [];
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const servername = tls ? (req.socket as TLSSocket).servername : undefined;
    seen.push({ method: req.method, url: req.url, headers: req.headers, servername });
    res.writeHead(status, location === undefined ? {} : { location });
    res.end('body');
  };
  const server = tls ? await startHttpsServer('self-signed', handler) : await startHttpServer(handler);
  servers.push(server);
  return { server, seen };
}

describe('public_http', () => {
  it('GETs / with the target as Host, port included when not 80, and is ok on the expected status', async () => {
    const { server, seen } = await webServer(false, 200);
    const { options, clock } = probeHarness();
    const result = await probePublicHttp(probeDevice({ port: server.port, check_public_http: true }), options);
    assert.deepEqual(
      { ...result, response_ms: typeof result.response_ms },
      {
        probe: 'public_http',
        checked_at: new Date(clock.now()).toISOString(),
        ok: true,
        response_ms: 'number',
        error: null,
        http_status: 200,
        location: null,
      },
    );
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.method, 'GET');
    assert.equal(seen[0]?.url, '/');
    assert.equal(seen[0]?.headers.host, `${FIXTURE_NAME}:${server.port}`);
  });

  it('sends host_header as written', async () => {
    const { server, seen } = await webServer(false, 200);
    const { options } = probeHarness();
    await probePublicHttp(probeDevice({ port: server.port, host_header: 'shop.customer.org:8080' }), options);
    assert.equal(seen[0]?.headers.host, 'shop.customer.org:8080');
  });

  it('fails on another status than expect_status, which may be any status', async () => {
    const { server } = await webServer(false, 503);
    const { options } = probeHarness();
    const failed = await probePublicHttp(probeDevice({ port: server.port }), options);
    assert.deepEqual([failed.ok, failed.http_status, failed.error], [false, 503, 'unexpected_status']);
    const expected = await probePublicHttp(probeDevice({ port: server.port, expect_status: 503 }), options);
    assert.deepEqual([expected.ok, expected.http_status, expected.error], [true, 503, null]);
  });

  it('records a redirect to a forbidden address and does not follow it', async () => {
    const target = 'http://169.254.169.254/latest/meta-data/';
    const { server, seen } = await webServer(false, 302, target);
    const { options, connector } = probeHarness();
    const result = await probePublicHttp(probeDevice({ port: server.port }), options);
    assert.deepEqual(
      [result.ok, result.http_status, result.location, result.error],
      [false, 302, target, 'unexpected_status'],
    );
    assert.deepEqual(
      connector.requests.map((r) => `${r.host}:${r.port}`),
      [`${FIXTURE_NAME}:${server.port}`],
    );
    assert.equal(seen.length, 1);
    const expected = await probePublicHttp(probeDevice({ port: server.port, expect_status: 302 }), options);
    assert.equal(expected.ok, true);
  });

  it('does not read the body: an endless one still gives the status at once', async () => {
    let closed = false;
    const server = await startHttpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16_384, 0x61);
      const pump = setInterval(() => res.write(chunk), 5);
      req.socket.once('close', () => {
        closed = true;
        clearInterval(pump);
      });
    });
    servers.push(server);
    // Reading the body would last until the probe's 30 s timeout.
    const { options } = probeHarness();
    const result = await probePublicHttp(probeDevice({ port: server.port }), options);
    assert.deepEqual([result.ok, result.http_status, result.error], [true, 200, null]);
    // The server sees the hang-up when it next reads the socket.
    await waitFor('the probe to hang up after the head', () => closed, 5);
  });

  it('fails with bad_http_response when something else than HTTP answers', async () => {
    const server = await startTcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    servers.push(server);
    const { options } = probeHarness();
    const result = await probePublicHttp(probeDevice({ port: server.port }), options);
    assert.deepEqual([result.ok, result.http_status, result.error], [false, null, 'bad_http_response']);
  });
});

describe('public_https', () => {
  it('speaks TLS with the name as SNI and does not judge the certificate (self-signed here)', async () => {
    const { server, seen } = await webServer(true, 200);
    const { options } = probeHarness();
    const result = await probePublicHttps(probeDevice({ scheme: 'https', port: server.port }), options);
    assert.deepEqual([result.probe, result.ok, result.http_status, result.error], ['public_https', true, 200, null]);
    assert.equal(seen[0]?.servername, FIXTURE_NAME);
    assert.equal(seen[0]?.headers.host, `${FIXTURE_NAME}:${server.port}`);
  });

  it('sends no SNI to an IP address, and the bracket-free address as Host', async () => {
    const { server, seen } = await webServer(true, 200);
    const { options } = probeHarness();
    const device = probeDevice({ target_type: 'ip', target_value: '127.0.0.1', scheme: 'https', port: server.port });
    const result = await probePublicHttps(device, options);
    assert.equal(result.ok, true);
    assert.equal(seen[0]?.servername, false);
    assert.equal(seen[0]?.headers.host, `127.0.0.1:${server.port}`);
  });
});

describe('origin_http', () => {
  it('asks the origin over origin_scheme with the public Host and SNI', async () => {
    const { server, seen } = await webServer(true, 200);
    const { options, connector } = probeHarness();
    const device = probeDevice({
      scheme: 'https',
      port: 443,
      origin_host: 'origin.probe-fixture.net',
      origin_scheme: 'https',
      origin_port: server.port,
    });
    const result = await probeOriginHttp(device, options);
    assert.deepEqual([result.probe, result.ok, result.http_status], ['origin_http', true, 200]);
    assert.deepEqual(
      connector.requests.map((r) => `${r.host}:${r.port}`),
      [`origin.probe-fixture.net:${server.port}`],
    );
    assert.equal(seen[0]?.servername, FIXTURE_NAME);
    assert.equal(seen[0]?.headers.host, FIXTURE_NAME, "the public port is https's default: no port in Host");
  });

  it('fails with no_origin_host when the device names no origin', async () => {
    const { options, connector } = probeHarness();
    const result = await probeOriginHttp(probeDevice({ check_origin_http: true }), options);
    assert.deepEqual([result.ok, result.error, result.response_ms], [false, 'no_origin_host', null]);
    assert.equal(connector.requests.length, 0);
  });
});
