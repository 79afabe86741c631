/**
 * docs/engine.md, "Checks on demand": `POST /devices/check` and `POST /blacklist-monitors/check`
 * through the API on every store, with the engine run by the test (`runOnce`) or not at all, and
 * the gap between two requests measured on the manual clock.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BlacklistMonitor, Device, DnsblResult } from '../../core/index.ts';
import { createMonitoringEngine } from '../../engine/index.ts';
import { startFakeDnsServer, type FakeDnsServer } from '../support/fake-dns-server.ts';
import { assertError, assertSuccess, eachStore } from './helpers.ts';

let dns: FakeDnsServer;
before(async () => (dns = await startFakeDnsServer({ '7.215.184.93.zen.spamhaus.org': { a: ['127.0.0.2'] } })));
after(() => dns.close());

eachStore('checks on demand', (env) => {
  test('without a worker: 202 and due at once; a worker run then checks it, however far its interval', async () => {
    const { t, key } = await env.setup();
    // Devices of this store (there are none yet) would be refused at the target policy: the
    // lookup answers loopback, and no address is connected to without it.
    const engine = createMonitoringEngine({
      store: t.store,
      clock: t.clock,
      dnsServers: [dns.address],
      dnsblZones: ['zen.spamhaus.org'],
      dnsTimeoutMs: 2_000,
      lookup: async () => ['127.0.0.1'],
    });
    const monitor = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '93.184.215.7' },
      }),
      201,
    );
    const results = async () =>
      assertSuccess(await t.request<DnsblResult[]>(`/v1/blacklist-monitors/results?id=${monitor.id}`, { key }), 200);
    // The first check; the next is an hour (give or take 10 %) away.
    assert.ok((await engine.runOnce()).written >= 1);
    assert.equal((await results()).length, 1);
    t.clock.advance(600_000);
    await engine.runOnce();
    assert.equal((await results()).length, 1, 'not due ten minutes later');

    const asked = await t.request<BlacklistMonitor>(`/v1/blacklist-monitors/check?id=${monitor.id}`, {
      method: 'POST',
      key,
    });
    const record = assertSuccess(asked, 202);
    assert.deepEqual(
      [record.id, record.last_status, record.listed_on],
      [monitor.id, 'listed', ['zen.spamhaus.org']],
      'the record as it stands',
    );
    assert.equal((await results()).length, 1, 'nothing is checked until a worker runs');
    await engine.runOnce();
    const after = await results();
    assert.equal(after.length, 2, 'the worker checked it at once');
    assert.equal(after[0]!.checked_at, new Date(t.clock.now()).toISOString());
  });

  test('at most once a minute per record: 429 check_too_soon with Retry-After, counted from the request that took effect', async () => {
    const { t, key } = await env.setup();
    const device = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'ssh8.example.com', service_type: 'ssh' },
      }),
      201,
    );
    const other = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'ssh9.example.com', service_type: 'ssh' },
      }),
      201,
    );
    const ask = (id: number) => t.request<Device>(`/v1/devices/check?id=${id}`, { method: 'POST', key });
    assertSuccess(await ask(device.id), 202);
    let refused = await ask(device.id);
    assertError(refused, 429, 'check_too_soon');
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.ok(refused.headers.get('ratelimit') !== null, "the key's quota is shown as on every answer past it");
    assertSuccess(await ask(other.id), 202); // the gap is per record
    t.clock.advance(45_500);
    refused = await ask(device.id);
    assertError(refused, 429, 'check_too_soon');
    assert.equal(refused.headers.get('retry-after'), '15', 'whole seconds, rounded up');
    t.clock.advance(14_500);
    assertSuccess(await ask(device.id), 202); // a minute after the last one that took effect
  });

  test('a paused record is 409 record_paused; a foreign or missing one 404; a bad id 400; read scope 403', async () => {
    const { t, key } = await env.setup();
    const paused = assertSuccess(
      await t.request<BlacklistMonitor>('/v1/blacklist-monitors/create', {
        method: 'POST',
        key,
        body: { target_type: 'ip', target_value: '93.184.215.10', is_enabled: false },
      }),
      201,
    );
    assertError(
      await t.request(`/v1/blacklist-monitors/check?id=${paused.id}`, { method: 'POST', key }),
      409,
      'record_paused',
    );
    const device = assertSuccess(
      await t.request<Device>('/v1/devices/create', {
        method: 'POST',
        key,
        body: { target_type: 'domain', target_value: 'ssh11.example.com', service_type: 'ssh', is_enabled: false },
      }),
      201,
    );
    assertError(await t.request(`/v1/devices/check?id=${device.id}`, { method: 'POST', key }), 409, 'record_paused');
    const stranger = await t.createKey();
    assertError(
      await t.request(`/v1/blacklist-monitors/check?id=${paused.id}`, { method: 'POST', key: stranger }),
      404,
      'blacklist_monitor_not_found',
    );
    assertError(
      await t.request(`/v1/devices/check?id=${device.id}`, { method: 'POST', key: stranger }),
      404,
      'device_not_found',
    );
    assertError(await t.request('/v1/devices/check?id=0', { method: 'POST', key }), 400, 'invalid_id');
    assertError(
      await t.request(`/v1/devices/check?id=${device.id}&force=1`, { method: 'POST', key }),
      400,
      'validation_failed',
    );
    const reader = await t.createKey({ userId: key.key.user_id, scopes: ['read'] });
    assertError(
      await t.request(`/v1/devices/check?id=${device.id}`, { method: 'POST', key: reader }),
      403,
      'insufficient_scope',
    );
  });
});
