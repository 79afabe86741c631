import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probesOf } from '../../engine/devices/device-probes.ts';
import { originEndpoint, publicEndpoint, publicName } from '../../engine/probes/device-endpoints.ts';
import { probeDevice } from '../support/probe-devices.ts';

describe('publicName', () => {
  it("is the target, with the port in Host only when it is not the scheme's default", () => {
    assert.deepEqual(publicName(probeDevice({ target_value: 'a.org', scheme: 'https', port: 443 })), {
      name: 'a.org',
      servername: 'a.org',
      hostHeader: 'a.org',
    });
    assert.deepEqual(
      publicName(probeDevice({ target_value: 'a.org', scheme: 'http', port: 8080 })).hostHeader,
      'a.org:8080',
    );
  });

  it('brackets an IPv6 target in Host and sends no SNI for an address', () => {
    const v6 = publicName(probeDevice({ target_type: 'ip', target_value: '2001:db8::1', scheme: 'https', port: 8443 }));
    assert.deepEqual(v6, { name: '2001:db8::1', servername: undefined, hostHeader: '[2001:db8::1]:8443' });
    assert.equal(publicName(probeDevice({ target_type: 'ip', target_value: '192.0.2.1' })).servername, undefined);
  });

  it('takes host_header as written for Host, and its name alone for SNI and the certificate', () => {
    assert.deepEqual(publicName(probeDevice({ host_header: 'shop.a.org:8443' })), {
      name: 'shop.a.org',
      servername: 'shop.a.org',
      hostHeader: 'shop.a.org:8443',
    });
    assert.deepEqual(publicName(probeDevice({ host_header: '[2001:db8::2]:81' })).servername, undefined);
  });
});

describe('endpoints', () => {
  it("uses the device's port for its own scheme and the default port for the other", () => {
    const device = probeDevice({ target_value: 'a.org', scheme: 'https', port: 8443 });
    assert.deepEqual(publicEndpoint(device, 'https'), { host: 'a.org', port: 8443, scheme: 'https' });
    assert.deepEqual(publicEndpoint(device, 'http'), { host: 'a.org', port: 80, scheme: 'http' });
  });

  it("uses the service's port for public_tls on a non-web device", () => {
    assert.equal(publicEndpoint(probeDevice({ service_type: 'imaps', scheme: null, port: 993 }), 'https').port, 993);
  });

  it('sends the origin probes to origin_host, origin_port applying to origin_scheme', () => {
    const device = probeDevice({
      scheme: 'https',
      port: 443,
      origin_host: '198.51.100.7',
      origin_scheme: 'http',
      origin_port: 8080,
    });
    assert.deepEqual(originEndpoint(device, 'http'), { host: '198.51.100.7', port: 8080, scheme: 'http' });
    assert.deepEqual(originEndpoint(device, 'https'), { host: '198.51.100.7', port: 443, scheme: 'https' });
    assert.equal(originEndpoint(probeDevice({ origin_host: null }), 'http'), null);
  });
});

describe('probesOf', () => {
  it("runs a web device's flagged probes, and nothing else", () => {
    const device = probeDevice({ check_public_https: true, check_public_tls: true, check_origin_tls: true });
    assert.deepEqual(probesOf(device), ['public_https', 'public_tls', 'origin_tls']);
    assert.deepEqual(probesOf(probeDevice()), []);
  });

  it('runs service on any other device, plus public_tls when its flag is on', () => {
    assert.deepEqual(probesOf(probeDevice({ service_type: 'ssh', check_public_http: true })), ['service']);
    assert.deepEqual(probesOf(probeDevice({ service_type: 'imaps', check_public_tls: true })), [
      'service',
      'public_tls',
    ]);
  });
});
